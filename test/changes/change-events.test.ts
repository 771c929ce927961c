/**
 * One event per real change (docs/changes.md): with events "changes" the outbox announces each changed key with
 * `<dataset>:<region>:<key>:<change digest>` as its idempotency key, in batches; a re-run adds nothing, a
 * correction exactly its own change, a revert a new key; a first version announces nothing unless asked.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { outboxPrefix } from "../../src/manifest/outbox.js";
import { deliverOutbox } from "../../src/outbox/deliver.js";
import { refreshPartition } from "../../src/protocol/refresh.js";
import { MemoryStore } from "../../src/store/memory.js";
import type { ObjectStore } from "../../src/store/types.js";
import type { TaskDefinition } from "../../src/task/task.js";
import { dateTwo, parcels, parcelsTask, writeFeed } from "../helpers/parcels-task.js";
import { startReceiver } from "../helpers/receiver.js";
import type { Receiver } from "../helpers/receiver.js";

const SECRET = "s3cret";
const [D1, D2, D3] = ["2026-03-01", "2026-03-02", "2026-03-03"];
let stores = 0;
const fresh = () => new MemoryStore(`change-events-${process.pid}-${stores++}`);

interface Item {
  idempotency_key: string;
  id: string;
  change: string[];
  columns: string[];
}
interface Body {
  id: string;
  region: string;
  logical_date: string;
  batch?: { index: number; of: number };
  items?: Item[];
}

describe("events per changed key", () => {
  let dir: string;
  let receiver: Receiver;
  let task: TaskDefinition;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "georefresh-change-events-"));
    receiver = await startReceiver(SECRET);
    task = parcelsTask(dir, { events: "changes" });
    const two = dateTwo(parcels(60));
    for (const region of ["weld", "larimer"]) {
      writeFeed(dir, region, D1, parcels(60));
      writeFeed(dir, region, D2, two);
      // Date 3 takes P-0020's rezoning back: A→B→A.
      writeFeed(
        dir,
        region,
        D3,
        two.map((p) => (p.parcel_id === "P-0020" ? { ...p, zoning: "R1" } : p)),
      );
    }
  });
  afterAll(async () => {
    await receiver.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const run = (store: ObjectStore, region: string, date: string, t = task) =>
    refreshPartition({ store, task: t, partition: { dataset: "parcels", region, date }, versions: {} });
  const deliver = (store: ObjectStore, batchItems?: number) =>
    deliverOutbox(store, {
      webhook: receiver.url,
      secret: SECRET,
      backoffMs: 1,
      ...(batchItems ? { batchItems } : {}),
    });
  const since = (n: number) => receiver.posts.slice(n).map((p) => ({ ...p, body: JSON.parse(p.body) as Body }));
  const records = async (store: ObjectStore) => {
    let n = 0;
    for await (const _ of store.list(outboxPrefix("parcels"))) n++;
    return n;
  };

  it("announces each changed key once, with a key of its own; re-runs add nothing; a revert is a new key", async () => {
    const store = fresh();
    let seen = receiver.posts.length;
    expect((await run(store, "weld", D1)).outcome).toBe("promoted");
    expect((await deliver(store)).counts.sent).toBe(1);
    const first = since(seen);
    expect(first).toHaveLength(1);
    expect(first[0]?.body.items).toBeUndefined(); // a first version: one partition event, no 60 row events
    expect(first[0]?.signed).toBe(true);

    seen = receiver.posts.length;
    expect((await run(store, "weld", D2)).outcome).toBe("promoted");
    expect((await deliver(store)).counts.sent).toBe(1);
    const second = since(seen);
    expect(second).toHaveLength(1);
    const items = second[0]?.body.items as Item[];
    expect(second[0]?.key).toBe(second[0]?.body.id);
    expect(second[0]?.body.batch).toEqual({ index: 0, of: 1 });
    expect(items.map((i) => `${i.id} ${i.change.join("+")}`)).toEqual([
      "P-0001 removed",
      "P-0002 removed",
      "P-0010 geometry_changed+attributes_changed",
      "P-0011 geometry_changed",
      "P-0012 geometry_changed",
      "P-0013 geometry_changed",
      "P-0020 attributes_changed",
      "P-0021 attributes_changed",
      "P-0022 attributes_changed",
      "P-0023 attributes_changed",
      "P-9001 added",
      "P-9002 added",
      "P-9003 added",
    ]);
    for (const i of items) expect(i.idempotency_key).toMatch(new RegExp(`^parcels:weld:${i.id}:[0-9a-f]{32}$`));
    expect(items.find((i) => i.id === "P-0010")?.columns).toEqual(["geometry", "owner"]);

    // Everything again: no new record, nothing new sent.
    const before = await records(store);
    seen = receiver.posts.length;
    for (const date of [D1, D2]) expect((await run(store, "weld", date)).outcome).toBe("unchanged");
    expect(await records(store)).toBe(before);
    expect((await deliver(store)).counts).toMatchObject({ sent: 0, "already-sent": 2 });
    expect(since(seen)).toEqual([]);

    // A→B→A: date 3 takes P-0020 back; its key differs from date 2's A→B.
    seen = receiver.posts.length;
    await run(store, "weld", D3);
    await deliver(store);
    const third = since(seen)[0]?.body.items as Item[];
    expect(third.map((i) => `${i.id} ${i.change.join("+")}`)).toEqual(["P-0020 attributes_changed"]);
    const there = items.find((i) => i.id === "P-0020")?.idempotency_key;
    expect(third[0]?.idempotency_key).not.toBe(there);

    // The same keys in another region never collide.
    seen = receiver.posts.length;
    for (const date of [D1, D2]) await run(store, "larimer", date);
    await deliver(store);
    const larimer = since(seen).flatMap((p) => p.body.items ?? []);
    expect(larimer).toHaveLength(13);
    const weldKeys = new Set(items.map((i) => i.idempotency_key));
    for (const i of larimer) {
      expect(weldKeys.has(i.idempotency_key)).toBe(false);
      expect(weldKeys.has(i.idempotency_key.replace(":larimer:", ":weld:"))).toBe(true); // same change, other region
    }
  });

  it("a correction that takes one change back sends exactly that one, under a key of its own", async () => {
    const store = fresh();
    for (const date of [D1, D2]) await run(store, "weld", date);
    await deliver(store);
    const original = receiver.posts
      .slice(-1)
      .flatMap((p) => (JSON.parse(p.body) as Body).items ?? [])
      .find((i) => i.id === "P-0021");
    const seen = receiver.posts.length;
    writeFeed(
      dir,
      "weld",
      D2,
      dateTwo(parcels(60)).map((p) => (p.parcel_id === "P-0021" ? { ...p, zoning: "AG" } : p)),
    );
    try {
      expect((await run(store, "weld", D2)).outcome).toBe("promoted");
      expect((await deliver(store)).counts.sent).toBe(1);
      const sent = since(seen);
      expect(sent).toHaveLength(1);
      const items = sent[0]?.body.items as Item[];
      expect(items.map((i) => `${i.id} ${i.change.join("+")} ${i.columns.join(",")}`)).toEqual([
        "P-0021 attributes_changed zoning",
      ]);
      expect(items[0]?.idempotency_key).not.toBe(original?.idempotency_key);
    } finally {
      writeFeed(dir, "weld", D2, dateTwo(parcels(60)));
    }
  });

  it("sends a large change set in batches and resumes after the last delivered batch", async () => {
    const store = fresh();
    const t = parcelsTask(dir, { events: "changes", initialEvents: true });
    expect((await run(store, "weld", D1, t)).outcome).toBe("promoted");
    let seen = receiver.posts.length;
    // The receiver takes batch 0, then every attempt at batch 1 fails: the deliver fails, having recorded batch 0.
    const firstTry = deliverOutbox(store, {
      webhook: receiver.url,
      secret: SECRET,
      backoffMs: 1,
      attempts: 2,
      batchItems: 25,
      transport: {
        name: "flaky",
        timeoutMs: 1000,
        send: async (m) => {
          if (m.batch?.index === 1) return { ok: false, retry: true, detail: "HTTP 503" };
          const res = await fetch(receiver.url, {
            method: "POST",
            body: JSON.stringify(m),
            headers: { "idempotency-key": m.id },
          });
          return { ok: res.ok, retry: !res.ok, detail: `HTTP ${res.status}` };
        },
      },
    });
    expect((await firstTry).counts.failed).toBe(1);
    expect(since(seen).map((p) => p.body.batch)).toEqual([{ index: 0, of: 3 }]);
    seen = receiver.posts.length;
    expect((await deliver(store, 25)).counts.sent).toBe(1);
    const rest = since(seen);
    expect(rest.map((p) => p.body.batch)).toEqual([
      { index: 1, of: 3 },
      { index: 2, of: 3 },
    ]);
    expect(rest.map((p) => p.key)).toEqual(rest.map((p) => `${p.body.id}`));
    expect(rest.flatMap((p) => p.body.items ?? []).length).toBe(35); // 60 added: 25 + 25 + 10, the first 25 sent before
  });
});
