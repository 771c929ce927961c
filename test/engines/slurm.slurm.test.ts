/**
 * infra/slurm/backfill.sbatch on a real single-node Slurm cluster against RGW: a 4-task array in which one task's
 * first attempt finds the store unreachable (exit 75, which Slurm must requeue) and another is cancelled mid-run
 * and re-submitted; finalize chained with --dependency=afterok. The store must end as a one-machine backfill
 * leaves it: every artifact byte, every manifest's current key and sha256, and one promotion per partition.
 */
import { execFileSync } from "node:child_process";
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { readManifest } from "../../src/manifest/codec.js";
import { backfill } from "../../src/orchestrate/backfill.js";
import { plannedPartitions } from "../../src/orchestrate/lanes.js";
import { loadTask } from "../../src/task/task-ref.js";
import type { ObjectStore } from "../../src/store/types.js";
import { runCli } from "../helpers/cli.js";
import { VERSIONS, writePoints } from "../helpers/points-task.js";
import { snapshot } from "../helpers/snapshot.js";
import { rgwHarness } from "../store/harness/rgw.js";
import type { StoreFixture } from "../store/harness/index.js";

const REPO = fileURLToPath(new URL("../..", import.meta.url));
const RANGE = ["--from", "2026-01-01", "--to", "2026-01-06"];
const REGIONS = ["r0", "r1", "r2", "r3", "r4", "r5"];
const SHARDS = 4;

async function judged(store: ObjectStore): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {};
  for await (const e of store.list("manifests/")) {
    const m = (await readManifest(store, e.key))?.manifest;
    out[e.key] = {
      key: m?.current?.key,
      sha256: m?.current?.sha256,
      plausibility: m?.current?.plausibility,
      history: m?.history.length,
    };
  }
  return out;
}

describe("Slurm job array of infra/slurm/backfill.sbatch (RGW)", () => {
  const conf = inject("slurm");
  let fx: StoreFixture;
  let ref: StoreFixture;
  let dir: string;
  let env: Record<string, string>;
  const slurm = (cmd: string, args: string[]) => execFileSync(cmd, args, { env, cwd: REPO, encoding: "utf8" });
  const gone = async (job: string) => {
    for (let i = 0; i < 1200; i++) {
      if (slurm("squeue", ["-h", "-j", job]).trim() === "") return;
      await new Promise((r) => setTimeout(r, 250));
    }
    throw new Error(`job ${job} still queued after 300 s: ${slurm("squeue", ["-j", job])}`);
  };
  /** Each task's JobState, ExitCode and Restarts, from the controller's records (kept MinJobAge=600 s). */
  const states = (job: string) => {
    const out: Record<string, { state: string; exit: string; restarts: number }> = {};
    for (const rec of slurm("scontrol", ["show", "job", "-o", job]).trim().split("\n")) {
      const field = (n: string) => new RegExp(`\\b${n}=(\\S+)`).exec(rec)?.[1] ?? "";
      out[field("ArrayTaskId") || "-"] = {
        state: field("JobState"),
        exit: field("ExitCode"),
        restarts: Number(field("Restarts")),
      };
    }
    return out;
  };

  beforeAll(async () => {
    if (!conf) throw new Error("no Slurm cluster (test/setup/services.ts)");
    fx = await rgwHarness.open();
    ref = await rgwHarness.open();
    dir = mkdtempSync(join(tmpdir(), "georefresh-slurm-"));
    writePoints(join(dir, "points.json"), 60);
    const helper = pathToFileURL(fileURLToPath(new URL("../helpers/points-task.ts", import.meta.url))).href;
    // A small delay per partition keeps each task running long enough to be cancelled part-way.
    writeFileSync(
      join(dir, "task.mjs"),
      `import { pointsTask } from ${JSON.stringify(helper)};\nexport default pointsTask(${JSON.stringify(join(dir, "points.json"))}, { regions: ${JSON.stringify(REGIONS)}, delayMs: 250 });\n`,
    );
    writeFileSync(join(dir, "versions.json"), JSON.stringify(VERSIONS));
    writeFileSync(
      join(dir, "config.json"),
      JSON.stringify({ store: fx.url, versions: "./versions.json", datasets: { k: { module: "./task.mjs" } } }),
    );
    // The test's georefresh: the CLI from source. Array task 1's first attempt gets an endpoint where nothing
    // listens, so it ends 75 (transient) and Slurm's RequeueExit must run it again.
    writeFileSync(
      join(dir, "georefresh"),
      `#!/bin/bash\nif [ "\${SLURM_ARRAY_TASK_ID:-}" = 1 ] && [ "\${SLURM_RESTART_COUNT:-0}" = 0 ]; then export AWS_ENDPOINT_URL_S3=http://127.0.0.1:9; fi\nexec ${JSON.stringify(process.execPath)} --import tsx ${JSON.stringify(join(REPO, "src/cli/main.ts"))} "$@"\n`,
    );
    chmodSync(join(dir, "georefresh"), 0o755);
    env = {
      ...(process.env as Record<string, string>),
      ...fx.env,
      SLURM_CONF: conf,
      GEOREFRESH_BIN: join(dir, "georefresh"),
    };
  }, 120_000);
  afterAll(async () => {
    await fx?.dispose();
    await ref?.dispose();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("requeues a transient failure, survives a cancelled and re-submitted task, and ends equal to one machine", async () => {
    const task = await loadTask({ module: pathToFileURL(join(dir, "task.mjs")).href, export: "default" });
    const clean = await backfill({
      store: ref.store,
      dataset: "k",
      task,
      versions: VERSIONS,
      from: "2026-01-01",
      to: "2026-01-06",
      threads: 0,
    });
    expect(clean.counts.promoted).toBe(36);

    const args = ["--dataset", "k", ...RANGE, "--config", join(dir, "config.json")];
    // --verbose: a line per partition in the backfill's log, which is how the test sees how far a task got.
    const backfillArgs = [...args, "--verbose"];
    const log = (job: string, index: number) => join(dir, `backfill-${job}_${index}.log`);
    const out = ["--output", join(dir, "backfill-%A_%a.log"), "--chdir", REPO];
    const job = slurm("sbatch", [
      "--parsable",
      `--array=0-${SHARDS - 1}`,
      ...out,
      join(REPO, "infra/slurm/backfill.sbatch"),
      ...backfillArgs,
    ]).trim();

    // Cancel task 0 once it has finished two partitions (of its 12), while it works on more.
    const mine = (
      await plannedPartitions({
        dataset: "k",
        task,
        from: "2026-01-01",
        to: "2026-01-06",
        shard: { index: 0, count: SHARDS },
      })
    ).length;
    let done = 0;
    for (let i = 0; i < 1200 && done < 2; i++) {
      await new Promise((r) => setTimeout(r, 100));
      done = existsSync(log(job, 0))
        ? (readFileSync(log(job, 0), "utf8").match(new RegExp(`^\\d+/${mine} `, "gm")) ?? []).length
        : 0;
    }
    expect(done).toBeGreaterThanOrEqual(2);
    slurm("scancel", [`${job}_0`]);
    await gone(job);

    const first = states(job);
    expect(first["0"]?.state).toBe("CANCELLED");
    expect(first["1"]).toMatchObject({ state: "COMPLETED", exit: "0:0", restarts: 1 }); // requeued on 75, then done
    expect(first["2"]).toMatchObject({ state: "COMPLETED", exit: "0:0" });
    expect(first["3"]).toMatchObject({ state: "COMPLETED", exit: "0:0" });
    expect(readFileSync(log(job, 1), "utf8")).toMatch(/kept failing: ECONNREFUSED/);
    expect(readFileSync(log(job, 0), "utf8")).toMatch(/SIGTERM: finishing the partitions in flight/);

    // Before the cancelled shard is re-run, finalize names exactly what it left and retires nothing.
    const early = await runCli(["finalize", ...args, "--json"], fx.env);
    expect(early.code).toBe(1);
    const missing = (JSON.parse(early.stdout) as { incomplete: { partition: { region: string } }[] }).incomplete;
    expect(missing.length).toBeGreaterThan(0);
    expect(missing.length).toBeLessThan(mine);

    // Re-submit index 0 with the array's shard count, and chain finalize on it.
    const again = slurm("sbatch", [
      "--parsable",
      "--array=0",
      `--export=ALL,GEOREFRESH_SHARDS=${SHARDS}`,
      ...out,
      join(REPO, "infra/slurm/backfill.sbatch"),
      ...backfillArgs,
    ]).trim();
    const fin = slurm("sbatch", [
      "--parsable",
      `--dependency=afterok:${again}`,
      "--output",
      join(dir, "finalize-%j.log"),
      "--chdir",
      REPO,
      join(REPO, "infra/slurm/finalize.sbatch"),
      ...args,
    ]).trim();
    await gone(again);
    await gone(fin);
    expect(states(again)["0"]).toMatchObject({ state: "COMPLETED", exit: "0:0" });
    expect(states(fin)["-"]).toMatchObject({ state: "COMPLETED", exit: "0:0" });
    expect(readFileSync(join(dir, `finalize-${fin}.log`), "utf8")).toContain("k: 36 partitions complete; retired 0");

    expect(await snapshot(fx.store, "artifacts/")).toEqual(await snapshot(ref.store, "artifacts/"));
    const sharded = await judged(fx.store);
    expect(sharded).toEqual(await judged(ref.store));
    expect(Object.values(sharded).every((m) => (m as { history: number }).history === 0)).toBe(true); // no double promotion
  }, 400_000);
});
