/**
 * A partition larger than its memory setting (docs/large-partitions.md): under a 256 KiB cap the artifact is
 * staged in a temp file, uploaded in 64 KiB parts where the store uploads in parts (S3), read back one row group
 * at a time by ranges, and published byte-identical to an uncapped run whose compute yields other batch sizes
 * and whose row groups are encoded on another number of threads.
 */
import { Binary, Int32, makeData, makeVector, Table } from "apache-arrow";
import { afterAll, beforeAll, expect, it } from "vitest";
import { defineTask } from "../../src/task/task.js";
import { refreshPartition } from "../../src/protocol/refresh.js";
import { describeEachStore } from "../store/harness/index.js";
import type { StoreFixture, StoreHarness } from "../store/harness/index.js";

const ROWS = 150_000; // three row groups

/** Points on a jittered grid, yielded in batches of `params.batch` rows. */
const task = defineTask({
  name: "large-points",
  version: "1",
  cadence: "daily",
  regions: ["la"],
  inputs: () => ({}),
  crs: "OGC:CRS84",
  idColumn: "id",
  async *compute(ctx) {
    const batch = Number(ctx.params.batch);
    for (let first = 0; first < ROWS; first += batch) {
      const n = Math.min(batch, ROWS - first);
      const data = new Uint8Array(21 * n);
      const view = new DataView(data.buffer);
      for (let i = 0; i < n; i++) {
        const r = first + i;
        view.setUint8(21 * i, 1);
        view.setUint32(21 * i + 1, 1, true);
        view.setFloat64(21 * i + 5, -118.5 + (r % 400) * 0.001 + ((r * 7919) % 97) * 1e-6, true);
        view.setFloat64(21 * i + 13, 33.7 + Math.floor(r / 400) * 0.001, true);
      }
      yield new Table({
        id: makeVector(
          makeData({ type: new Int32(), length: n, data: Int32Array.from({ length: n }, (_, i) => first + i) }),
        ),
        geometry: makeVector(
          makeData({
            type: new Binary(),
            length: n,
            data,
            valueOffsets: Int32Array.from({ length: n + 1 }, (_, i) => 21 * i),
          }),
        ),
      });
    }
  },
});

function suite(h: StoreHarness): void {
  let capped: StoreFixture;
  let uncapped: StoreFixture;
  beforeAll(async () => {
    [capped, uncapped] = [await h.open(), await h.open()];
  });
  afterAll(async () => Promise.all([capped.dispose(), uncapped.dispose()]));

  it("publishes under a 256 KiB cap, byte-identical to an uncapped run with other batches and threads", async () => {
    const partition = { dataset: "parcels", region: "la", date: "2026-12-01" };
    const [small, big] = await Promise.all([
      refreshPartition({
        store: capped.store,
        task,
        partition,
        versions: {},
        params: { batch: 7_777 },
        maxMemory: 256 * 1024,
        encodeThreads: 2,
      }),
      refreshPartition({ store: uncapped.store, task, partition, versions: {}, params: { batch: 65_536 } }),
    ]);
    expect([small.outcome, big.outcome]).toEqual(["promoted", "promoted"]);
    expect(small.rows).toBe(ROWS);
    expect(small.sha256).toBe(big.sha256);
    const a = small.manifest?.current.artifact as string;
    const b = big.manifest?.current.artifact as string;
    const [mine, theirs] = [await capped.store.get(a), await uncapped.store.get(b)];
    expect(mine.meta.size).toBeGreaterThan(2 * 256 * 1024); // well past the cap
    expect(Buffer.compare(mine.body, theirs.body)).toBe(0);
    if (h.uploads) {
      // In 64 KiB parts (S3 multipart, Azure blocks) under the cap; in one PUT without it.
      expect(await h.uploads.partsOf(capped.store, a)).toBe(Math.ceil(mine.meta.size / (64 * 1024)));
      expect(await h.uploads.partsOf(uncapped.store, b)).toBe(0);
    }
    // Nothing left aside: the temp key is gone.
    const left: string[] = [];
    for await (const e of capped.store.list("_tmp/")) left.push(e.key);
    expect(left).toEqual([]);
  });

  it("re-reads an existing artifact under the cap by ranges and reconciles a manifest that lost it", async () => {
    const partition = { dataset: "parcels", region: "la", date: "2026-12-02" };
    const opts = {
      store: capped.store,
      task,
      partition,
      versions: {},
      params: { batch: 50_000 },
      maxMemory: 256 * 1024,
    };
    const first = await refreshPartition(opts);
    expect(first.outcome).toBe("promoted");
    await capped.store.delete(first.manifest?.key as string); // the artifact stays, its manifest is gone
    const again = await refreshPartition(opts);
    expect(again.outcome).toBe("reconciled");
    expect(again.sha256).toBe(first.sha256);
  });
}

describeEachStore("a partition larger than its memory setting", suite, (h) => h.capabilities.crossProcess);
