/**
 * Every command's failure paths, walked from one table: each line is a mistake a user makes, the exit code it
 * must give, and the error code its --json must carry. The code must map to that exit through the one table
 * (EXIT_CODE, which README's "Exit codes" is generated from), and every command is in the walk at least once.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { COMMANDS } from "../../src/cli/commands.js";
import { EXIT_CODE } from "../../src/cli/exit-codes.js";
import { runCliHere } from "../helpers/cli.js";

const dir = mkdtempSync(join(tmpdir(), "georefresh-exit-walk-"));
const config = join(dir, "georefresh.config.json");
const at = (name: string) => join(dir, name);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

beforeAll(async () => {
  writeFileSync(
    at("weld.geojson"),
    JSON.stringify({
      type: "FeatureCollection",
      features: [
        { type: "Feature", properties: { id: "a" }, geometry: { type: "Point", coordinates: [-104.8, 40.4] } },
      ],
    }),
  );
  writeFileSync(
    config,
    JSON.stringify({
      store: "./data",
      datasets: { parcels: { source: { url: "./{region}.geojson", key: ["id"] }, regions: ["weld"] } },
    }),
  );
  writeFileSync(at("bad.parquet"), "not parquet");
  const r = await runCliHere([
    "backfill",
    "--config",
    config,
    "--dataset",
    "parcels",
    "--to",
    "2026-03-01",
    "--trailing",
    "1",
  ]);
  expect(r.code, r.stderr).toBe(0);
});

/** [command line (--config is added where the command takes one), exit code, the --json error's code]. */
const WALK: [string[], number, string | undefined][] = [
  [["backfill", "--dataset", "nope", "--to", "2026-03-01", "--trailing", "1"], 2, "Usage"],
  [["backfill", "--dataset", "parcels", "--from", "2026-03-02", "--to", "2026-03-01"], 2, "Usage"],
  [["backfill", "--dataset", "parcels", "--to", "2026-03-01"], 2, "Usage"], // neither --from nor --trailing
  [["backfill", "--dataset", "parcels", "--to", "2026-03-01", "--trailing", "1", "--max-memory", "lots"], 2, "Usage"],
  [["backfill", "--dataset", "parcels", "--bogus"], 2, "Usage"], // commander's own error, as JSON too
  [["run", "--dataset", "parcels", "--region", "weld", "--date", "2026-02-30"], 2, "Usage"],
  [["run", "--dataset", "parcels", "--region", "weld"], 2, "Usage"], // required option missing
  [["finalize", "--dataset", "parcels", "--from", "2026-03-02", "--to", "2026-03-01"], 2, "Usage"],
  [["ls", "nope"], 2, "Usage"],
  [["show", "parcels", "--region", "weld", "--date", "2026-02-30"], 2, "Usage"],
  [["show", "parcels", "--region", "weld", "--date", "2026-01-05"], 1, "Read"], // no manifest that day
  [["show", "parcels", "--region", "Weld", "--latest-date"], 2, "Usage"], // names weld, the region it holds
  [["urls", "parcels", "--bbox", "1,2,3"], 2, "Usage"],
  [["read", "parcels", "--region", "weld", "--latest-date", "--format", "xml"], 2, "Usage"],
  [
    ["read", "parcels", "--region", "weld", "--latest-date", "--format", "geojson", "--out", "/nonexistent/x.geojson"],
    2,
    "Usage",
  ],
  [["changes", "parcels", "--region", "weld", "--from", "2026-03-02", "--to", "2026-03-01"], 2, "Usage"],
  [["sink", "parcels", "--to", "out.txt"], 2, "SinkTarget"],
  [["sink", "parcels", "--to", "postgresql://georefresh@127.0.0.1:1/nowhere"], 75, "SinkUnavailable"],
  [["stac", "nope"], 2, "Usage"],
  [["report", "parcels", "--html", "/nonexistent/report.html"], 2, "Usage"],
  [["deliver", "--dataset", "parcels"], 2, "Usage"], // --webhook missing
  [["gc", "--older-than", "5x"], 2, "Usage"],
  [["validate", at("nothing-here.parquet")], 2, undefined],
  [["verify", "parcels", "--region", "weld", "--date", "2026-02-30"], 2, "Usage"],
  [["doctor", "--store", "s3://AKIAEXAMPLE:secret@bucket/prefix"], 3, "Misconfigured"],
  [["serve", "--port", "99999"], 2, "Usage"],
];

const TAKES_CONFIG = new Set([
  "backfill",
  "run",
  "finalize",
  "ls",
  "show",
  "urls",
  "read",
  "changes",
  "sink",
  "stac",
  "report",
  "deliver",
  "gc",
  "verify",
  "serve",
]);

describe("the exit-code walk", () => {
  it("names every command", () => {
    expect([...new Set(WALK.map(([args]) => args[0]))].sort()).toEqual(Object.keys(COMMANDS).sort());
  });

  it.each(WALK.map(([args, exit, code]) => [args.join(" "), args, exit, code] as const))(
    "%s",
    async (_title, args, exit, code) => {
      const line = [...args, ...(TAKES_CONFIG.has(args[0] as string) ? ["--config", config] : [])];
      const json = args[0] !== "serve"; // serve prints no JSON; it is a server
      const r = await runCliHere(json ? [...line, "--json"] : line, { CI: "" });
      expect(r.code, `${line.join(" ")}\n${r.stderr}`).toBe(exit);
      expect(r.stderr).not.toMatch(/\n\s+at .*:\d+:\d+/); // no stack trace
      if (!json) return;
      const body = JSON.parse(r.stdout) as { ok: boolean; error?: { code?: string; message: string } };
      expect(body.ok).toBe(false);
      if (code === undefined) return;
      expect(body.error?.code, r.stdout).toBe(code);
      expect(EXIT_CODE[code as keyof typeof EXIT_CODE], `${code} maps to ${exit} in the table`).toBe(exit);
      expect(body.error?.message).not.toMatch(/\.tmp-\d+|secret/);
      if (args.includes("Weld")) expect(body.error?.message).toMatch(/did you mean weld\?.*its regions are weld/);
    },
  );
});
