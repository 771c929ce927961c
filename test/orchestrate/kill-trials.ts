/** kill -9 a real `georefresh backfill` at a random moment, re-run, and find the store a clean run would leave. */
import { spawn } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, expect, it } from "vitest";
import { backfill } from "../../src/orchestrate/backfill.js";
import { loadTask } from "../../src/task/task-ref.js";
import type { TaskDefinition } from "../../src/task/task.js";
import { FsStore } from "../../src/store/fs.js";
import type { ObjectStore } from "../../src/store/types.js";
import { BUILT_MAIN, bundledPointsTask } from "../helpers/built-cli.js";
import { VERSIONS, writePoints } from "../helpers/points-task.js";
import { manifestsConsistent, visible } from "../helpers/visible.js";
import type { StoreHarness } from "../store/harness/index.js";

// 2 regions × 16 logical dates: enough partitions for kills to land anywhere, few enough for 10 trials per backend.
const RANGE = { from: "2026-01-01", to: "2026-01-16" };
const PARTITIONS = 32;

/** Options of one file's trials: how many, whether the first kills at startup, and which dataset. */
export interface KillTrials {
  trials: number;
  startupKill: boolean;
  keyed: boolean;
}

/**
 * `trials` kills against one store. Each store's 10 trials run as two files of 5 (kill.test.ts on a plain dataset,
 * kill-keyed.test.ts on a keyed one with change events), so the suite's two forks share the slowest work.
 */
export function killTrials(h: StoreHarness, { trials, startupKill, keyed }: KillTrials): void {
  let dir: string;
  let task: TaskDefinition;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "georefresh-kill-"));
    writePoints(join(dir, "points.json"), 400);
    const helper = bundledPointsTask(dir); // plain JavaScript: the compiled CLI loads it without tsx
    writeFileSync(
      join(dir, "task.mjs"),
      `import { pointsTask } from ${JSON.stringify(helper)};\nexport default pointsTask(${JSON.stringify(join(dir, "points.json"))}, { keyed: ${keyed} });\n`,
    );
    writeFileSync(join(dir, "versions.json"), JSON.stringify(VERSIONS));
    task = await loadTask({ module: pathToFileURL(join(dir, "task.mjs")).href, export: "default" });
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const finish = (store: ObjectStore) =>
    backfill({ store, dataset: "k", task, versions: VERSIONS, ...RANGE, threads: 0 });

  it(`${trials} kills at random moments: the re-run always ends where a clean run ends`, async () => {
    const ref = await h.open();
    const clean = await finish(ref.store);
    expect(clean.counts.promoted).toBe(PARTITIONS);
    const expected = await visible(ref.store);
    await ref.dispose();

    const killedMidway: number[] = [];
    for (let trial = 0; trial < trials; trial++) {
      const fx = await h.open();
      try {
        writeFileSync(
          join(dir, "config.json"),
          JSON.stringify({ store: fx.url, versions: "./versions.json", datasets: { k: { module: "./task.mjs" } } }),
        );
        const child = spawn(
          process.execPath,
          [
            BUILT_MAIN,
            "backfill",
            "--dataset",
            "k",
            "--from",
            RANGE.from,
            "--to",
            RANGE.to,
            "--verbose", // a line per partition on stderr: how the test knows how far it got
            "--config",
            join(dir, "config.json"),
          ],
          {
            env: { ...process.env, ...fx.env },
            stdio: ["ignore", "ignore", "pipe"],
          },
        );
        // The first trial dies during start-up; the others after a random number of partitions (plus a random
        // few ms, so the kill lands anywhere inside the next partition's steps), whatever the machine's speed.
        const target = trial === 0 && startupKill ? 0 : 1 + Math.floor(Math.random() * (PARTITIONS - 2));
        let done = 0;
        let reached: () => void = () => undefined;
        const progressed = new Promise<void>((r) => (reached = r));
        child.stderr.on("data", (d: Buffer) => {
          done += (d.toString().match(new RegExp(`^\\d+/${PARTITIONS} `, "gm")) ?? []).length;
          if (done >= target) reached();
        });
        const exited = new Promise((r) => child.once("exit", r));
        await Promise.race([trial === 0 && startupKill ? new Promise((r) => setTimeout(r, 300)) : progressed, exited]);
        await new Promise((r) => setTimeout(r, Math.random() * 20));
        child.kill("SIGKILL");
        await exited;
        killedMidway.push(done);
        await manifestsConsistent(fx.store);
        const rerun = await finish(fx.store);
        expect(rerun.counts.failed + rerun.counts.invalid + rerun.counts.superseded, JSON.stringify(rerun.counts)).toBe(
          0,
        );
        expect(await visible(fx.store), `trial ${trial}, killed after ${done} partitions`).toEqual(expected);
        if (fx.store instanceof FsStore) expect(readdirSync(join(fx.store.root, ".georefresh", "locks"))).toEqual([]);
      } finally {
        await fx.dispose();
      }
    }
    // The kills landed while work was in progress, not only before it began or after it ended.
    expect(
      killedMidway.some((d) => d > 0 && d < PARTITIONS),
      JSON.stringify(killedMidway),
    ).toBe(true);
  }, 600_000);
}
