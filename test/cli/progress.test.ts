import { describe, expect, it, vi } from "vitest";
import { formatDuration, progressBar, progressReporter, stepProgress } from "../../src/cli/progress.js";
import { unfinishedDateWarning } from "../../src/cli/window.js";
import type { RefreshResult } from "../../src/protocol/refresh.js";

describe("progress bar", () => {
  it("shows fill, counts, outcomes, rate and the time left at that rate", () => {
    expect(progressBar(50, 200, { promoted: 40, unchanged: 10 }, 10_000, 20)).toBe(
      "[#####...............] 50/200 promoted 40, unchanged 10 (5.0/s, ~30s left)",
    );
    expect(progressBar(1_000, 100_000, { promoted: 1_000 }, 100_000, 10)).toBe(
      "[..........] 1000/100000 promoted 1000 (10.0/s, ~2h45m left)",
    );
  });

  it("says nothing about time left before the first partition or after the last", () => {
    expect(progressBar(0, 10, {}, 0, 10)).toBe("[..........] 0/10  (0.0/s)");
    expect(progressBar(10, 10, { unchanged: 10 }, 2_000, 10)).toBe("[##########] 10/10 unchanged 10 (5.0/s)");
  });

  it("formats durations for people", () => {
    expect([0.4, 42, 60, 725, 3600, 11_250].map(formatDuration)).toEqual([
      "0s",
      "42s",
      "1m00s",
      "12m05s",
      "1h00m",
      "3h07m",
    ]);
  });
});

/** What `fn` writes to stderr, chunk by chunk, while stderr is (`tty`) or is not a terminal. */
async function stderrChunks(tty: boolean, fn: (written: string[]) => unknown): Promise<string[]> {
  const written: string[] = [];
  const spy = vi.spyOn(process.stderr, "write").mockImplementation((chunk) => {
    written.push(String(chunk));
    return true;
  });
  const was = process.stderr.isTTY;
  process.stderr.isTTY = tty;
  try {
    await fn(written);
  } finally {
    spy.mockRestore();
    process.stderr.isTTY = was;
  }
  return written;
}

/** The lines `fn` writes to stderr when stderr is not a terminal (a CI log). */
async function stderrWithoutTerminal(fn: (written: string[]) => unknown): Promise<string[]> {
  return (await stderrChunks(false, fn)).join("").trim().split("\n");
}

describe("progress without a terminal", () => {
  const result = (i: number, outcome: RefreshResult["outcome"]): RefreshResult => ({
    partition: { dataset: "d", region: `r${i}`, date: "2026-01-01" },
    outcome,
    runId: "x",
    message: outcome === "invalid" ? "refused: too few rows" : "ok",
  });
  const lines = (everyMs: number, verbose: boolean) =>
    stderrWithoutTerminal(() => {
      const p = progressReporter(false, false, { verbose, everyMs });
      ["unchanged", "unchanged", "invalid", "promoted"].forEach((o, i) =>
        p.onResult(result(i, o as RefreshResult["outcome"]), i + 1, 4),
      );
      p.end();
    });

  it("says what went wrong at once, and otherwise only how far it got, at most every everyMs", async () => {
    expect(await lines(3_600_000, false)).toEqual(["3/4 invalid d r2 2026-01-01: refused: too few rows"]);
    const every = await lines(0, false);
    expect(every).toEqual([
      expect.stringMatching(/^progress: \[#####\.+\] 1\/4 unchanged 1 /),
      expect.stringMatching(/^progress: \[#{10}\.+\] 2\/4 unchanged 2 /),
      "3/4 invalid d r2 2026-01-01: refused: too few rows",
    ]);
  });

  it("with verbose, a line per partition", async () => {
    expect(await lines(3_600_000, true)).toEqual([
      "1/4 unchanged d r0 2026-01-01: ok",
      "2/4 unchanged d r1 2026-01-01: ok",
      "3/4 invalid d r2 2026-01-01: refused: too few rows",
      "4/4 promoted d r3 2026-01-01: ok",
    ]);
  });
});

describe("a window that has not ended", () => {
  it("is warned about: a day up to today, a month up to its last day", () => {
    expect(unfinishedDateWarning("--to", "2026-12-01", "daily", "2026-12-02")).toBeUndefined();
    expect(unfinishedDateWarning("--to", "2026-12-02", "daily", "2026-12-02")).toMatch(
      /--to 2026-12-02 has not ended yet \(today is 2026-12-02 UTC; its day\)/,
    );
    expect(unfinishedDateWarning("--date", "2026-12-01", "monthly", "2026-12-02")).toMatch(
      /--date 2026-12-01 has not ended yet \(today is 2026-12-02 UTC; its month ends 2026-12-31\)/,
    );
    expect(unfinishedDateWarning("--to", "2026-11-01", "monthly", "2026-12-01")).toBeUndefined();
  });
});

describe("a step's progress (sink) without a terminal", () => {
  const lines = async (everyMs: number, json = false) =>
    (
      await stderrWithoutTerminal(() => {
        const step = stepProgress("sink parcels", json, false, { everyMs });
        for (let done = 1; done <= 4; done++) step(done, 4);
      })
    ).filter(Boolean);

  it("says how far it got at most every everyMs, never after the last unit, and nothing under --json", async () => {
    const every = await lines(0);
    expect(every).toHaveLength(3);
    expect(every[0]).toMatch(/^progress: sink parcels: \[#{5}\.{15}\] 1\/4 /);
    expect(await lines(60_000)).toEqual([]);
    expect(await lines(0, true)).toEqual([]);
  });
});

describe("what a partition in flight is doing", () => {
  const stage = (partition: string, s: string) => ({ partition, stage: s });
  const detail = (partition: string, d: string) => ({ partition, detail: d });
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
  const promoted = (region: string): RefreshResult => ({
    partition: { dataset: "d", region, date: "2026-01-01" },
    outcome: "promoted",
    runId: "x",
    message: "",
  });

  it("without a terminal: a line every everyMs while a partition runs, its stage and rows read, none after", async () => {
    let quietAfter = true;
    const lines = await stderrWithoutTerminal(async (written) => {
      const p = progressReporter(false, false, { everyMs: 60 });
      p.onStart(1);
      p.onStage(stage("d r0 2026-01-01", "compute (read, reproject)"));
      p.onStage(detail("d r0 2026-01-01", "65,536 rows read from r0.geojson"));
      await sleep(400);
      p.onStage(stage("d r0 2026-01-01", "change set"));
      await sleep(400);
      p.onResult(promoted("r0"), 1, 1);
      const before = written.length;
      await sleep(200);
      quietAfter = written.length === before;
      p.end();
    });
    expect(quietAfter, "nothing once no partition is in flight").toBe(true);
    expect(lines[0]).toMatch(
      /^progress: d r0 2026-01-01: compute \(read, reproject\), 65,536 rows read from r0\.geojson, \ds in$/,
    );
    expect(lines.some((l) => /^progress: d r0 2026-01-01: change set, \ds in$/.test(l))).toBe(true);
    expect(lines.every((l) => l.startsWith("progress: d r0 "))).toBe(true);
  });

  it("with several partitions, the bar before it; nothing under --json or --quiet", async () => {
    const run = async (json: boolean, quiet: boolean) =>
      (
        await stderrChunks(false, async () => {
          const p = progressReporter(json, quiet, { everyMs: 60 });
          p.onStart(3);
          p.onStage(stage("d r1 2026-01-01", "sort, encode"));
          await sleep(400);
          p.end();
        })
      ).join("");
    expect(await run(false, false)).toMatch(
      /^progress: \[\.{20}\] 0\/3 {2}\(0\.0\/s\) · d r1 2026-01-01: sort, encode, 0s in\n/,
    );
    expect(await run(true, false)).toBe("");
    expect(await run(false, true)).toBe("");
  });

  it("on a terminal: each stage drawn over the last, and a single partition's line cleared when it ends", async () => {
    const written = await stderrChunks(true, () => {
      const p = progressReporter(false, false);
      p.onStart(1);
      p.onStage(stage("d r0 2026-01-01", "compute (read, reproject)"));
      p.onStage(stage("d r0 2026-01-01", "publish"));
      p.onResult(promoted("r0"), 1, 1);
      p.end();
    });
    expect(written).toEqual([
      "\r\x1b[Kd r0 2026-01-01: compute (read, reproject), 0s in",
      "\r\x1b[Kd r0 2026-01-01: publish, 0s in",
      "\r\x1b[K",
    ]);
  });
});
