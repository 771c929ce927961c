/**
 * Three `backfill --shard i/3` processes against a shared store (RGW, Azurite); one is killed with SIGKILL
 * part-way through its lanes. A re-run of that shard and then finalize end where a clean one-machine backfill
 * ends, every partition promoted exactly once.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, expect, it } from "vitest";
import { readManifest } from "../../src/manifest/codec.js";
import { backfill } from "../../src/orchestrate/backfill.js";
import { loadTask } from "../../src/task/task-ref.js";
import { runCli } from "../helpers/cli.js";
import { BUILT_MAIN, bundledPointsTask } from "../helpers/built-cli.js";
import { VERSIONS, writePoints } from "../helpers/points-task.js";
import { manifestsConsistent, visible } from "../helpers/visible.js";
import { describeEachStore } from "../store/harness/index.js";
import type { StoreFixture, StoreHarness } from "../store/harness/index.js";

const RANGE = ["--from", "2026-01-01", "--to", "2026-01-08"];
const REGIONS = ["a", "b", "c", "d", "e", "f"];

function suite(h: StoreHarness): void {
  let fx: StoreFixture;
  let ref: StoreFixture;
  let dir: string;
  beforeAll(async () => {
    fx = await h.open();
    ref = await h.open();
    dir = mkdtempSync(join(tmpdir(), "georefresh-killshard-"));
    writePoints(join(dir, "points.json"), 80);
    const helper = bundledPointsTask(dir); // plain JavaScript: the compiled CLI loads it without tsx
    writeFileSync(
      join(dir, "task.mjs"),
      `import { pointsTask } from ${JSON.stringify(helper)};\nexport default pointsTask(${JSON.stringify(join(dir, "points.json"))}, { regions: ${JSON.stringify(REGIONS)}, delayMs: 100 });\n`,
    );
    writeFileSync(join(dir, "versions.json"), JSON.stringify(VERSIONS));
    writeFileSync(
      join(dir, "config.json"),
      JSON.stringify({ store: fx.url, versions: "./versions.json", datasets: { k: { module: "./task.mjs" } } }),
    );
  }, 120_000);
  afterAll(async () => {
    await fx?.dispose();
    await ref?.dispose();
    rmSync(dir, { recursive: true, force: true });
  });

  it("a re-run of the killed shard plus finalize equals a clean run, with no double promotion", async () => {
    const task = await loadTask({ module: pathToFileURL(join(dir, "task.mjs")).href, export: "default" });
    expect(
      (
        await backfill({
          store: ref.store,
          dataset: "k",
          task,
          versions: VERSIONS,
          from: "2026-01-01",
          to: "2026-01-08",
          threads: 0,
        })
      ).counts.promoted,
    ).toBe(48);

    const args = (shard: string) => [
      BUILT_MAIN,
      "backfill",
      "--dataset",
      "k",
      ...RANGE,
      "--shard",
      shard,
      "--workers",
      "0",
      "--verbose", // a line per partition on stderr: how the test knows how far it got
      "--config",
      join(dir, "config.json"),
    ];
    const shard = (i: number, onProgress?: (done: number, kill: () => void) => void) =>
      new Promise<number | null>((resolve, reject) => {
        const child = spawn(process.execPath, args(`${i}/3`), {
          env: { ...process.env, ...fx.env },
          stdio: ["ignore", "ignore", "pipe"],
        });
        let done = 0;
        child.stderr.on("data", (d: Buffer) => {
          done += (d.toString().match(/^\d+\/16 /gm) ?? []).length;
          onProgress?.(done, () => child.kill("SIGKILL"));
        });
        child.on("error", reject);
        child.on("exit", (code, signal) => resolve(signal === "SIGKILL" ? null : code));
      });
    let killedAfter = -1;
    const codes = await Promise.all([
      shard(0),
      // Killed after 3 of its 16 partitions, a random few ms into the next one's steps.
      shard(1, (done, kill) => {
        if (done >= 3 && killedAfter < 0) {
          killedAfter = done;
          setTimeout(kill, Math.random() * 40);
        }
      }),
      shard(2),
    ]);
    expect(codes).toEqual([0, null, 0]);
    expect(killedAfter).toBeGreaterThanOrEqual(3);
    await manifestsConsistent(fx.store);

    const early = await runCli(["finalize", "--dataset", "k", ...RANGE, "--config", join(dir, "config.json")], fx.env);
    expect(early.code).toBe(1);
    expect(early.stdout).toMatch(/^k: \d+ of 48 partitions not complete, nothing retired:/);

    const rerun = await runCli(args("1/3").slice(1), fx.env);
    expect(rerun.code, rerun.stderr).toBe(0);
    const fin = await runCli(["finalize", "--dataset", "k", ...RANGE, "--config", join(dir, "config.json")], fx.env);
    expect(fin.code).toBe(0);
    expect(fin.stdout).toMatch(/^k: 48 partitions complete; retired 0; snapshot [0-9a-f]{16}\n$/);

    expect(await visible(fx.store)).toEqual(await visible(ref.store));
    for await (const e of fx.store.list("manifests/"))
      expect((await readManifest(fx.store, e.key))?.manifest.history, e.key).toEqual([]);
  }, 300_000);
}

describeEachStore("a shard killed with SIGKILL", suite, (h) => h.capabilities.remote);
