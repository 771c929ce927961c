/** Careless input is a usage error (exit 2) that says what was wrong, before anything runs. */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { COMMANDS } from "../../src/cli/commands.js";
import { runCliHere as runCli } from "../helpers/cli.js";

describe("usage errors exit 2 with a clear message", () => {
  let dir: string;
  let store: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "georefresh-usage-"));
    store = join(dir, "store");
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  /** A config of the built-in counties with this versions.json content. */
  function withVersions(versions: unknown): string {
    writeFileSync(join(dir, "versions.json"), JSON.stringify(versions));
    writeFileSync(
      join(dir, "config.json"),
      JSON.stringify({ store: "./store", versions: "./versions.json", datasets: { c: { task: "us-counties" } } }),
    );
    return join(dir, "config.json");
  }

  const cases: [string, string[], RegExp][] = [
    [
      "a non-numeric --concurrency",
      [
        "backfill",
        "--dataset",
        "us-counties",
        "--from",
        "2026-01-01",
        "--to",
        "2026-01-02",
        "--concurrency",
        "abc",
        "--store",
        "x",
      ],
      /--concurrency <n>' argument 'abc' is invalid\. expected a whole number ≥ 1/,
    ],
    [
      "a fractional --workers",
      [
        "backfill",
        "--dataset",
        "us-counties",
        "--from",
        "2026-01-01",
        "--to",
        "2026-01-02",
        "--workers",
        "1.5",
        "--store",
        "x",
      ],
      /expected a whole number ≥ 0, got "1\.5"/,
    ],
    [
      "a non-numeric --attempts",
      ["deliver", "--webhook", "http://127.0.0.1:1/x", "--attempts", "abc", "--store", "x"],
      /--attempts <n>' argument 'abc' is invalid/,
    ],
    [
      "a negative --keep",
      ["gc", "--artifacts", "--keep", "-1", "--store", "x"],
      /--keep <n>' argument '-1' is invalid/,
    ],
    [
      "a gc floor below 1h",
      ["gc", "--older-than", "10m", "--apply", "--store", "x"],
      /below gc's floor of 1h; runs in progress own younger objects\. Add --override-floor/,
    ],
    [
      "a day that does not exist",
      [
        "backfill",
        "--dataset",
        "us-counties",
        "--from",
        "2026-02-30",
        "--to",
        "2026-03-02",
        "--dry-run",
        "--store",
        "x",
      ],
      /--from 2026-02-30 is not a calendar date YYYY-MM-DD/,
    ],
    [
      // It exited 5 ("the task failed") before: every usage error of verify was taken for its scratch run failing.
      "verify of a dataset nobody defined",
      ["verify", "no-such-dataset", "--region", "RI", "--date", "2026-01-01", "--store", "x"],
      /no-such-dataset/,
    ],
    [
      "a key with a '..' segment",
      ["show", "us-counties", "--region", "x/../../y", "--date", "2026-01-01", "--store", "x"],
      /invalid key .*no '\.' or '\.\.' segments/,
    ],
  ];
  for (const [what, args, message] of cases) {
    it(
      what,
      async () => {
        const r = await runCli(args.map((a) => (a === "x" ? store : a)));
        expect(r.stderr).toMatch(message);
        expect(r.code).toBe(2);
      },
      30_000,
    );
  }

  const versions: [string, unknown, RegExp][] = [
    [
      "two values of a pin from one date",
      {
        vintage: [
          { from: "2026-01-01", value: "a" },
          { from: "2026-01-01", value: "b" },
        ],
      },
      /pin 'vintage' has two entries from 2026-01-01; keep one value per date/,
    ],
    [
      "a pin from a date that does not exist",
      { vintage: [{ from: "2026-13-45", value: "a" }] },
      /pin 'vintage' has an entry .*a calendar date/,
    ],
    [
      "an array instead of an object",
      [{ from: "2026-01-01", value: "a" }],
      /expected an object of pin name → \[\{ from, value \}\]/,
    ],
  ];
  for (const [what, doc, message] of versions) {
    it(`versions.json with ${what}`, async () => {
      const r = await runCli(["ls", "c", "--config", withVersions(doc)]);
      expect(r.stderr).toMatch(message);
      expect(r.code).toBe(2);
    }, 30_000);
  }
});

describe("--help", () => {
  it("marks each option a command cannot run without as (required), once", async () => {
    const doubled: string[] = [];
    let marked = 0;
    for (const name of Object.keys(COMMANDS)) {
      const { stdout, code } = await runCli([name, "--help"]);
      expect(code, name).toBe(0);
      // One entry per option: its line and the wrapped lines under it.
      for (const entry of stdout.split(/\n(?= {2}-)/)) {
        const n = entry.split("(required)").length - 1;
        marked += n;
        if (n > 1) doubled.push(`${name}: ${entry.trim().split(/\s+/)[0]}`);
      }
    }
    expect(doubled).toEqual([]);
    expect(marked).toBeGreaterThanOrEqual(10); // sink --to, run --dataset/--region/--date, backfill --to, …
  });
});
