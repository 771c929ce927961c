/** A reversed or impossible window is a usage error (exit 2) for every kind of dataset, said in one line. */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCliHere } from "../helpers/cli.js";

describe("the window's dates", () => {
  let config: string;
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "georefresh-window-dates-"));
    config = join(dir, "config.json");
    writeFileSync(
      config,
      JSON.stringify({
        store: "./data",
        datasets: { feed: { source: { url: "./{region}.geojson" }, regions: ["weld"], cadence: "daily" } },
      }),
    );
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("reversed, impossible or malformed: exit 2 naming the flag, for backfill and finalize", async () => {
    for (const command of ["backfill", "finalize"])
      for (const [from, to, message] of [
        ["2026-11-05", "2026-11-01", "--from 2026-11-05 is after --to 2026-11-01"],
        ["2026-02-30", "2026-03-01", "--from 2026-02-30 is not a calendar date YYYY-MM-DD"],
        ["2026-11-01", "2026-13-01", "--to 2026-13-01 is not a calendar date YYYY-MM-DD"],
      ] as const) {
        const r = await runCliHere([command, "--config", config, "--dataset", "feed", "--from", from, "--to", to]);
        expect(r.code, `${command} ${from} ${to}: ${r.stderr}`).toBe(2);
        expect(r.stderr).toContain(message);
        expect(r.stderr).not.toMatch(/RangeError|at .*\.js:\d+/);
      }
  });

  it("the same for the commands that read and compare dates, and a --trailing that reaches before the year 1", async () => {
    const cases: [string[], string][] = [
      [
        ["changes", "feed", "--region", "weld", "--from", "2026-03-01", "--to", "2026-01-01"],
        "--from 2026-03-01 is after --to 2026-01-01",
      ],
      [
        ["changes", "feed", "--region", "weld", "--from", "2026-13-01", "--to", "2026-01-01"],
        "--from 2026-13-01 is not a calendar date",
      ],
      [["urls", "feed", "--from", "2026-03-01", "--to", "2026-01-01"], "--from 2026-03-01 is after --to 2026-01-01"],
      [["read", "feed", "--from", "2026-03-01", "--to", "2026-01-01"], "--from 2026-03-01 is after --to 2026-01-01"],
      [["show", "feed", "--region", "weld", "--date", "2026-02-30"], "--date 2026-02-30 is not a calendar date"],
      [["verify", "feed", "--region", "weld", "--date", "2026-02-30"], "--date 2026-02-30 is not a calendar date"],
      [
        ["backfill", "--dataset", "feed", "--trailing", "9999999", "--to", "2026-01-01"],
        "--trailing 9999999 from --to 2026-01-01 reaches before the year 1",
      ],
    ];
    for (const [args, message] of cases) {
      const r = await runCliHere([...args, "--config", config]);
      expect(r.code, `${args.join(" ")}: ${r.stderr}`).toBe(2);
      expect(r.stderr).toContain(message);
      expect(r.stderr).not.toMatch(/RangeError|at .*\.js:\d+/);
    }
  });
});
