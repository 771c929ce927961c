/**
 * SIGTERM (Kubernetes stopping a pod) or Ctrl-C during a backfill: partitions in flight finish, no more start,
 * the summary says what was left, the exit code is 143 / 130, and a re-run ends where a clean run ends.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { backfill } from "../../src/orchestrate/backfill.js";
import { FsStore } from "../../src/store/fs.js";
import { pointsTask, VERSIONS, writePoints } from "../helpers/points-task.js";
import { manifestsConsistent, visible } from "../helpers/visible.js";

const MAIN = fileURLToPath(new URL("../../src/cli/main.ts", import.meta.url));
const RANGE = { from: "2026-01-01", to: "2026-01-31" };

describe("interrupting a backfill", () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "georefresh-interrupt-"));
    writePoints(join(dir, "points.json"), 60);
    const helper = pathToFileURL(fileURLToPath(new URL("../helpers/points-task.ts", import.meta.url))).href;
    // Each partition's compute waits 150 ms, so a signal always finds work in flight and work not yet started.
    writeFileSync(
      join(dir, "task.mjs"),
      `import { pointsTask } from ${JSON.stringify(helper)};\nexport default pointsTask(${JSON.stringify(join(dir, "points.json"))}, { delayMs: 150 });\n`,
    );
    writeFileSync(
      join(dir, "slow.mjs"),
      `import { pointsTask } from ${JSON.stringify(helper)};\nexport default pointsTask(${JSON.stringify(join(dir, "points.json"))}, { delayMs: 3000 });\n`,
    );
    writeFileSync(join(dir, "versions.json"), JSON.stringify(VERSIONS));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  /** Starts `georefresh backfill` on a fresh store; resolves once `after` partitions have finished. */
  function start(store: string, after: number, module = "./task.mjs") {
    writeFileSync(
      join(dir, "config.json"),
      JSON.stringify({ store, versions: "./versions.json", datasets: { k: { module } } }),
    );
    const child = spawn(
      process.execPath,
      [
        "--import",
        "tsx",
        MAIN,
        "backfill",
        "--dataset",
        "k",
        "--from",
        RANGE.from,
        "--to",
        RANGE.to,
        "--workers",
        "0",
        "--verbose", // a line per partition on stderr: how the test knows how far it got
        "--config",
        join(dir, "config.json"),
      ],
      { stdio: ["ignore", "pipe", "pipe"] },
    );
    let stdout = "";
    let stderr = "";
    let done = 0;
    const progressed = new Promise<void>((resolve) => {
      child.stderr.on("data", (d: Buffer) => {
        stderr += d.toString();
        done += (d.toString().match(/^\d+\/62 /gm) ?? []).length;
        if (done >= after) resolve();
      });
    });
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
    const told = new Promise<void>((resolve) =>
      child.stderr.on("data", () => /finishing the partitions in flight/.test(stderr) && resolve()),
    );
    return { child, progressed, told, exited, out: () => ({ stdout, stderr, done }) };
  }

  it("SIGTERM: in-flight partitions finish, none start, exit 143, and a re-run completes the store", async () => {
    const store = new FsStore(join(dir, "term"));
    const run = start(store.root, 5);
    await run.progressed;
    run.child.kill("SIGTERM");
    expect(await run.exited).toBe(143);
    const { stdout, stderr } = run.out();
    const m = /^k: 62 partitions: (\d+) promoted; interrupted: (\d+) not started \(run again to finish\)\n$/.exec(
      stdout,
    );
    expect(m, stdout + stderr).not.toBeNull();
    const [promoted, notStarted] = [Number(m?.[1]), Number(m?.[2])];
    expect(promoted + notStarted).toBe(62);
    expect(notStarted).toBeGreaterThan(0);
    expect(stderr).toContain("SIGTERM: finishing the partitions in flight");
    // Everything that ran finished: no temp object, every manifest consistent, one manifest per promoted partition.
    const keys: string[] = [];
    for await (const e of store.list("")) keys.push(e.key);
    expect(keys.filter((k) => k.startsWith("_tmp/"))).toEqual([]);
    expect(keys.filter((k) => k.startsWith("manifests/"))).toHaveLength(promoted);
    await manifestsConsistent(store);

    const rest = await backfill({
      store,
      dataset: "k",
      task: pointsTask(join(dir, "points.json")),
      versions: VERSIONS,
      ...RANGE,
      threads: 0,
    });
    expect(rest.counts).toMatchObject({ promoted: notStarted, unchanged: promoted, failed: 0 });
    expect(rest.notStarted).toBe(0); // counted without a progress callback too
    expect(rest.results).toHaveLength(62);
    const clean = new FsStore(join(dir, "clean"));
    await backfill({
      store: clean,
      dataset: "k",
      task: pointsTask(join(dir, "points.json")),
      versions: VERSIONS,
      ...RANGE,
      threads: 0,
    });
    expect(await visible(store)).toEqual(await visible(clean));
  }, 120_000);

  it("a second signal stops at once, exit 130, and leaves nothing a reader can see half-done", async () => {
    const store = new FsStore(join(dir, "int"));
    // Partitions that take 3 s each: the second signal comes while the first ones are still computing.
    const run = start(store.root, 1, "./slow.mjs");
    await run.progressed;
    run.child.kill("SIGINT");
    await run.told;
    const sent = Date.now();
    run.child.kill("SIGINT");
    expect(await run.exited).toBe(130);
    expect(Date.now() - sent).toBeLessThan(2_000); // it did not wait for the 3-second partitions
    expect(run.out().stdout).toBe(""); // and printed no summary
    await manifestsConsistent(store);
  }, 120_000);
});
