/**
 * finalize, the fan-in after a sharded backfill: it finds exactly the partitions a missing shard left, retires a
 * region that left the complete list only once the plan is complete, ends where a one-machine backfill ends, and
 * is idempotent when run twice at once.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readManifest } from "../../src/manifest/codec.js";
import { artifactKey } from "../../src/manifest/layout.js";
import { backfill } from "../../src/orchestrate/backfill.js";
import { finalize } from "../../src/orchestrate/finalize.js";
import { plannedPartitions } from "../../src/orchestrate/lanes.js";
import { FsStore } from "../../src/store/fs.js";
import type { ObjectStore } from "../../src/store/types.js";
import { runCliHere as runCli } from "../helpers/cli.js";
import { pointsTask, VERSIONS, writePoints } from "../helpers/points-task.js";
import { snapshot } from "../helpers/snapshot.js";

const RANGE = { from: "2026-01-01", to: "2026-01-04" };
const BEFORE = ["east", "north", "south", "west"];
const AFTER = ["east", "north", "south"]; // west left the task's complete region list

async function state(store: ObjectStore): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {};
  for await (const e of store.list("manifests/")) {
    const m = (await readManifest(store, e.key))?.manifest;
    out[e.key] = { key: m?.current?.key, sha256: m?.current?.sha256, retired: Boolean(m?.retired) };
  }
  return out;
}

describe("finalize", () => {
  let dir: string;
  let input: string;
  let changed: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "georefresh-finalize-"));
    input = join(dir, "points.json");
    writePoints(input, 24);
    changed = join(dir, "changed.json");
    writePoints(changed, 24, 1);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const v1 = () => pointsTask(input, { regions: BEFORE });
  const v2 = () => pointsTask(changed, { regions: AFTER, version: "2" });
  // A new code version that changes no row: new keys, the same bytes.
  const v3 = () => pointsTask(changed, { regions: AFTER, version: "3" });
  const run = (store: ObjectStore, task: ReturnType<typeof v1>, shard?: { index: number; count: number }) =>
    backfill({
      store,
      dataset: "f",
      task,
      versions: VERSIONS,
      ...RANGE,
      threads: 0,
      concurrency: 4,
      ...(shard ? { shard } : {}),
    });
  const check = (store: ObjectStore, task = v2()) =>
    finalize({ store, dataset: "f", task, versions: VERSIONS, ...RANGE });

  it("lists what a missing shard left, retires only when complete, ends equal to one machine, twice at once", async () => {
    const one = new FsStore(join(dir, "one"));
    expect((await run(one, v1())).counts.promoted).toBe(16);
    const whole = await run(one, v2());
    expect(whole.counts.promoted).toBe(12);
    expect(whole.retired).toHaveLength(4);

    const store = new FsStore(join(dir, "sharded"));
    await run(store, v1());
    const first = await run(store, v2(), { index: 0, count: 2 });
    expect(first.retired).toEqual([]); // a shard never retires

    const partial = await check(store);
    const missing = (
      await plannedPartitions({ dataset: "f", task: v2(), ...RANGE, shard: { index: 1, count: 2 } })
    ).map((p) => `${p.region} ${p.date}`);
    expect(partial.incomplete.map((p) => `${p.partition.region} ${p.partition.date}`).sort()).toEqual(missing.sort());
    expect(
      partial.incomplete.every(
        (p) => p.status === "changed" && p.reasons.includes("code test-squares@1 → test-squares@2"),
      ),
    ).toBe(true);
    expect(partial.complete).toBe(12 - missing.length);
    expect(partial.retired).toEqual([]);
    expect(partial.retirement).toEqual({ skipped: `${missing.length} planned partition(s) are not complete` });
    expect(Object.values(await state(store)).filter((s) => (s as { retired: boolean }).retired)).toHaveLength(0);

    await run(store, v2(), { index: 1, count: 2 });
    const [a, b] = await Promise.all([check(store), check(store)]);
    for (const s of [a, b]) {
      expect(s.incomplete).toEqual([]);
      expect(s.complete).toBe(12);
      expect(s.retirement).toBe("applied");
    }
    // Each tombstone was written once, by one of the two.
    expect([...a.retired, ...b.retired].sort()).toEqual([...whole.retired].sort());
    expect(await state(store)).toEqual(await state(one));
    expect(await snapshot(store, "artifacts/")).toEqual(await snapshot(one, "artifacts/"));

    const before = await snapshot(store);
    const again = await check(store);
    expect(again.retired).toEqual([]);
    expect(await snapshot(store)).toEqual(before); // idempotent: a third run writes nothing

    // Same bytes under new keys: incomplete until a run re-keyed the manifests to them.
    expect((await check(store, v3())).incomplete).toHaveLength(12);
    const rekeyed = await run(store, v3());
    expect(rekeyed.counts.rekeyed).toBe(12);
    for (const r of rekeyed.results) {
      const m = (await readManifest(store, `manifests/f/region=${r.partition.region}/date=${r.partition.date}.json`))
        ?.manifest;
      expect([m?.current?.code_version, m?.current?.sha256]).toEqual(["test-squares@3", m?.history[0]?.sha256]);
    }
    const same = await check(store, v3());
    expect(same.incomplete).toEqual([]);
    expect(same.complete).toBe(12);
  }, 120_000);

  it("the CLI: exit 1 naming a missing artifact, --json, and 0 once it is restored", async () => {
    const storeDir = join(dir, "cli");
    const store = new FsStore(storeDir);
    await run(store, v2());
    const helper = pathToFileURL(fileURLToPath(new URL("../helpers/points-task.ts", import.meta.url))).href;
    writeFileSync(
      join(dir, "task.mjs"),
      `import { pointsTask } from ${JSON.stringify(helper)};\nexport default pointsTask(${JSON.stringify(changed)}, { regions: ${JSON.stringify(AFTER)}, version: "2" });\n`,
    );
    writeFileSync(join(dir, "versions.json"), JSON.stringify(VERSIONS));
    writeFileSync(
      join(dir, "config.json"),
      JSON.stringify({ store: storeDir, versions: "./versions.json", datasets: { f: { module: "./task.mjs" } } }),
    );
    const args = [
      "finalize",
      "--dataset",
      "f",
      "--from",
      RANGE.from,
      "--to",
      RANGE.to,
      "--config",
      join(dir, "config.json"),
    ];

    const ok = await runCli(args);
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stdout).toMatch(/^f: 12 partitions complete; retired 0; snapshot [0-9a-f]{16}\n$/);

    const m = (await readManifest(store, "manifests/f/region=north/date=2026-01-03.json"))?.manifest;
    const artifact = artifactKey({ dataset: "f", region: "north", date: "2026-01-03" }, m?.current?.key as string);
    const bytes = (await store.get(artifact)).body;
    await store.delete(artifact);
    const bad = await runCli(args);
    expect(bad.code).toBe(1);
    expect(bad.stdout).toContain("f: 1 of 12 partitions not complete, nothing retired:");
    expect(bad.stdout).toContain(`1 × missing-artifact: ${artifact} is missing (north; 2026-01-03)`);
    const json = await runCli([...args, "--json"]);
    expect(json.code).toBe(1);
    const parsed = JSON.parse(json.stdout) as {
      ok: boolean;
      incomplete: { status: string; partition: { region: string } }[];
      retirement: unknown;
    };
    expect(parsed.ok).toBe(false);
    expect(parsed.incomplete.map((p) => [p.status, p.partition.region])).toEqual([["missing-artifact", "north"]]);

    await store.put(artifact, bytes, { mode: "create" });
    const trailing = await runCli([
      "finalize",
      "--dataset",
      "f",
      "--trailing",
      "4",
      "--to",
      RANGE.to,
      "--regions",
      "north",
      "--config",
      join(dir, "config.json"),
    ]);
    expect(trailing.code, trailing.stderr).toBe(0);
    expect(trailing.stdout).toMatch(
      /^f: 4 partitions complete; no retirement: --regions names a subset; snapshot [0-9a-f]{16}\n$/,
    );
  }, 120_000);
});
