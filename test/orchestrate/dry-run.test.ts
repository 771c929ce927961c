/**
 * `backfill --dry-run` says what a run would do and why, and writes nothing: not an artifact, not a manifest,
 * not even the capability probe's scratch key.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { backfill } from "../../src/orchestrate/backfill.js";
import { planBackfill } from "../../src/orchestrate/dry-run.js";
import type { PartitionPlan } from "../../src/orchestrate/dry-run.js";
import { manifestKey } from "../../src/manifest/layout.js";
import { refreshPartition } from "../../src/protocol/refresh.js";
import { CountingStore } from "../../src/store/counting.js";
import { FsStore } from "../../src/store/fs.js";
import { runCliHere as runCli } from "../helpers/cli.js";
import { pointsTask, writePoints } from "../helpers/points-task.js";
import { snapshot } from "../helpers/snapshot.js";

const V1 = { square_size: [{ from: "2026-01-01", value: "1" }] };
const V2 = {
  square_size: [
    { from: "2026-01-01", value: "1" },
    { from: "2026-01-06", value: "3" },
  ],
};
const RANGE = { from: "2026-01-01", to: "2026-01-10" };

describe("dry run", () => {
  let dir: string;
  let store: FsStore;
  let input: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "georefresh-dry-"));
    input = join(dir, "points.json");
    writePoints(input, 30);
    store = new FsStore(join(dir, "store"));
    const r = await backfill({ store, dataset: "d", task: pointsTask(input), versions: V1, ...RANGE, threads: 0 });
    expect(r.counts.promoted).toBe(20);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const byDate = (plans: PartitionPlan[], region = "north") =>
    Object.fromEntries(plans.filter((p) => p.partition.region === region).map((p) => [p.partition.date, p]));

  it("names each partition's fate and the pin, code or input behind it, writing nothing", async () => {
    const before = await snapshot(store);
    const counting = new CountingStore(store);
    const same = await planBackfill({ store: counting, dataset: "d", task: pointsTask(input), versions: V1, ...RANGE });
    expect(same.counts.unchanged).toBe(20);
    expect(counting.calls).toMatchObject({ put: 0, delete: 0, get: 20, exists: 20 }); // reads only: a manifest and a stat each

    // A pin changes from the 6th, two dates are new, and the code version is bumped on another copy of the task.
    const pinned = await planBackfill({
      store,
      dataset: "d",
      task: pointsTask(input),
      versions: V2,
      from: "2026-01-01",
      to: "2026-01-12",
    });
    expect(pinned.counts).toEqual({
      unchanged: 10,
      changed: 10,
      new: 4,
      reconcile: 0,
      "missing-artifact": 0,
      error: 0,
    });
    const north = byDate(pinned.plans);
    expect(north["2026-01-05"]?.status).toBe("unchanged");
    expect(north["2026-01-06"]).toMatchObject({ status: "changed", reasons: ["pin square_size 1 → 3"] });
    expect(north["2026-01-12"]).toMatchObject({ status: "new", reasons: [] });
    const bumped = await planBackfill({
      store,
      dataset: "d",
      task: pointsTask(input, { version: "2" }),
      versions: V1,
      ...RANGE,
    });
    expect(
      bumped.plans.every((p) => p.status === "changed" && p.reasons.join() === "code test-squares@1 → test-squares@2"),
    ).toBe(true);

    writePoints(input, 30, 7); // the input's bytes change
    const moved = await planBackfill({ store, dataset: "d", task: pointsTask(input), versions: V1, ...RANGE });
    expect(moved.counts.changed).toBe(20);
    expect(moved.plans[0]?.reasons).toEqual([
      expect.stringMatching(/^input points sha256:[0-9a-f]{12}… → sha256:[0-9a-f]{12}…$/),
    ]);
    writePoints(input, 30); // back as it was
    expect(await snapshot(store)).toEqual(before);
  });

  it("tells a reconcile from a change, and reports a missing artifact", async () => {
    // A run that published its artifact, then lost its promotion: put the old manifest back by hand.
    const key = manifestKey({ dataset: "d", region: "south", date: "2026-01-08" });
    const old = (await store.get(key)).body;
    const r = await refreshPartition({
      store,
      task: pointsTask(input),
      partition: { dataset: "d", region: "south", date: "2026-01-08" },
      versions: V2,
    });
    expect(r.outcome).toBe("promoted");
    await store.put(key, old);
    // And an artifact deleted behind georefresh's back.
    const gone = (
      await planBackfill({ store, dataset: "d", task: pointsTask(input), versions: V1, ...RANGE })
    ).plans.find((p) => p.partition.region === "north" && p.partition.date === "2026-01-02");
    await store.delete(`artifacts/d/region=north/date=2026-01-02/${gone?.key}.parquet`);

    const plan = await planBackfill({ store, dataset: "d", task: pointsTask(input), versions: V2, ...RANGE });
    expect(byDate(plan.plans, "south")["2026-01-08"]).toMatchObject({
      status: "reconcile",
      reasons: ["pin square_size 1 → 3"],
    });
    expect(byDate(plan.plans)["2026-01-02"]).toMatchObject({ status: "missing-artifact" });
  });

  it("through the CLI: grouped reasons for people, every plan as JSON, exit 5 for a missing artifact", async () => {
    const helper = new URL("../helpers/points-task.ts", import.meta.url).pathname;
    writeFileSync(
      join(dir, "task.mjs"),
      `import { pointsTask } from ${JSON.stringify(helper)};\nexport default pointsTask(${JSON.stringify(input)});\n`,
    );
    writeFileSync(join(dir, "versions.json"), JSON.stringify(V2));
    writeFileSync(
      join(dir, "config.json"),
      JSON.stringify({ store: store.root, versions: "./versions.json", datasets: { d: { module: "./task.mjs" } } }),
    );
    const before = await snapshot(store);
    const args = [
      "backfill",
      "--dataset",
      "d",
      "--from",
      "2026-01-01",
      "--to",
      "2026-01-12",
      "--dry-run",
      "--config",
      join(dir, "config.json"),
    ];
    const human = await runCli(args);
    expect(human.stdout).toMatch(
      /^d: 24 partitions, dry run \(nothing written\): 9 unchanged, 4 new, 9 changed, 1 reconcile, 1 missing-artifact\n/,
    );
    expect(human.stdout).toContain("  9 × changed: pin square_size 1 → 3 (north, south; 2026-01-06 … 2026-01-10)");
    expect(human.stdout).toContain("  4 × new (north, south; 2026-01-11 … 2026-01-12)");
    expect(human.code).toBe(5);
    const json = await runCli([...args, "--json"]);
    const parsed = JSON.parse(json.stdout) as { dryRun: boolean; total: number; plans: PartitionPlan[] };
    expect(parsed.dryRun).toBe(true);
    expect(parsed.plans).toHaveLength(24);
    expect(await snapshot(store)).toEqual(before);
  });
});
