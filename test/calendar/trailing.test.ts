/** `--trailing N`: a nightly run's window, the last N logical dates up to the scheduler's date, by cadence. */
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { logicalDates, trailingFrom } from "../../src/calendar/calendar.js";
import { runCliHere as runCli } from "../helpers/cli.js";

describe("--trailing", () => {
  it("counts back logical dates by cadence, across month and year ends, from a --to that need not be a logical date", () => {
    expect(logicalDates(trailingFrom("2026-03-02", 3, "daily"), "2026-03-02", "daily")).toEqual([
      "2026-02-28",
      "2026-03-01",
      "2026-03-02",
    ]);
    expect(logicalDates(trailingFrom("2028-03-01", 2, "daily"), "2028-03-01", "daily")).toEqual([
      "2028-02-29",
      "2028-03-01",
    ]);
    expect(logicalDates(trailingFrom("2026-02-15", 3, "monthly"), "2026-02-15", "monthly")).toEqual([
      "2025-12-01",
      "2026-01-01",
      "2026-02-01",
    ]);
    expect(logicalDates(trailingFrom("2026-01-01", 1, "monthly"), "2026-01-01", "monthly")).toEqual(["2026-01-01"]);
    expect(() => trailingFrom("2026-02-30", 3, "daily")).toThrow(/--to 2026-02-30 is not a calendar date/);
  });

  it("through the CLI: the window's partitions, and exactly one of --from and --trailing", async () => {
    const store = join(tmpdir(), "georefresh-trailing-never-written");
    const r = await runCli([
      "backfill",
      "--dataset",
      "us-counties",
      "--to",
      "2026-03-20",
      "--trailing",
      "2",
      "--list-shards",
      "1",
      "--json",
      "--store",
      store,
    ]);
    expect(r.stderr).toBe("");
    const [only] = JSON.parse(r.stdout) as { regions: string[]; partitions: number }[];
    expect(only?.partitions).toBe((only?.regions.length ?? 0) * 2); // February and March, for every state
    for (const args of [["--from", "2026-01-01", "--trailing", "2"], []]) {
      const bad = await runCli([
        "backfill",
        "--dataset",
        "us-counties",
        "--to",
        "2026-03-20",
        ...args,
        "--dry-run",
        "--store",
        store,
      ]);
      expect(bad.stderr).toMatch(/give --from DATE or --trailing N/);
      expect(bad.code).toBe(2);
    }
  }, 60_000);
});
