import { describe, expect, it } from "vitest";
import { formatDuration, progressBar } from "../../src/cli/progress.js";

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
