/**
 * A partition refused by plausibility leaves its trace: ls, show and the report say its last run was refused and
 * why, while the manifest keeps its old version; the backfill says why it committed no snapshot; a later promotion
 * ends the refusal (issue 27 item 5).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCliHere } from "../helpers/cli.js";
import { writeFeedProject } from "../helpers/source-corpus.js";

let dir: string;
const config = () => join(dir, "georefresh.config.json");
const cli = (...args: string[]) => runCliHere([...args, "--config", config()]);
const feed = () => join(dir, "feeds", "weld.geojson");
const full = () => readFileSync(join(dir, "parcels-base.geojson"), "utf8");
/** Weld's feed loses 20 of its 30 parcels: −67 % rows, which plausibility refuses. */
const cut = () => {
  const doc = JSON.parse(full()) as { features: unknown[] };
  writeFileSync(feed(), JSON.stringify({ ...doc, features: doc.features.slice(0, 10) }));
};
const backfill = (from: string, to: string, ...more: string[]) =>
  cli("backfill", "--dataset", "parcels", "--from", from, "--to", to, ...more);

interface LsRow {
  region: string;
  date: string;
  status: string;
  rows: number;
  refused: { at: string; message: string } | null;
}

describe("a refused partition leaves a trace", () => {
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "georefresh-refused-"));
    writeFeedProject(dir, ["weld", "larimer"]);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("in ls, show, the report and the backfill's summary, until a promotion ends it", async () => {
    expect((await backfill("2026-01-01", "2026-01-31")).code).toBe(0);
    cut();
    // February: weld's first version is refused against January's history; larimer's is promoted.
    const feb = await backfill("2026-02-01", "2026-02-28");
    expect(feb.code).toBe(1);
    expect(feb.stdout).toMatch(/parcels: 2 partitions: 1 promoted, 1 invalid\n/);
    expect(feb.stderr).toMatch(
      /georefresh: no snapshot committed: 1 refused \(invalid\): a snapshot is the whole dataset settled, so the latest one stays as it was; fix what the partitions above say and run again\n/,
    );
    // January again: weld's new version is refused, its old one stays current.
    const jan = await backfill("2026-01-01", "2026-01-31", "--regions", "weld");
    expect(jan.code).toBe(1);

    const rows = JSON.parse((await cli("ls", "parcels", "--json")).stdout) as LsRow[];
    const weld = rows.filter((r) => r.region === "weld");
    expect(weld.map((r) => [r.date, r.status, r.rows])).toEqual([
      ["2026-01-01", "current", 30],
      ["2026-02-01", "empty", 0],
    ]);
    for (const r of weld) expect(r.refused?.message).toMatch(/rows? .*30|plausib/i);
    expect(rows.filter((r) => r.region === "larimer").every((r) => r.refused === null)).toBe(true);
    const text = await cli("ls", "parcels");
    expect(text.stdout).toMatch(/\nweld\t2026-01-01\tcurrent, refused\t30\t[0-9a-f]{16}\t/);
    expect(text.stdout).toMatch(/\nweld\t2026-02-01\tempty, refused\t0\t-\t-\n/);
    expect(text.stderr).toMatch(
      /^georefresh: weld 2026-01-01: the last run \(.+\) was refused, so the version above is still current: /m,
    );
    expect(text.stderr).toMatch(
      /^georefresh: weld 2026-02-01: the last run \(.+\) was refused, so nothing is published: /m,
    );

    const show = await cli("show", "parcels", "--region", "weld", "--date", "2026-01-01");
    const shown = JSON.parse(show.stdout) as { current: { rows: number }; last_refusal?: { message: string } };
    expect(shown.current.rows).toBe(30);
    expect(shown.last_refusal?.message).toBe(weld[0]?.refused?.message);
    expect(show.stderr).toMatch(/the last run \(.+\) was refused, so the version above is still current/);

    const html = join(dir, "report.html");
    const report = await cli("report", "parcels", "--html", html);
    expect(report.code, report.stderr).toBe(0);
    const page = readFileSync(html, "utf8");
    expect(page.match(/data-state="refused"/g)).toHaveLength(2);
    expect(page).toMatch(/<ul id="refused"><li>weld 2026-01-01 \(/);

    // Promoted over the objection: the refusal no longer describes January.
    const over = await cli(
      "run",
      "--dataset",
      "parcels",
      "--region",
      "weld",
      "--date",
      "2026-01-01",
      "--override-plausibility",
    );
    expect(over.code, over.stderr).toBe(0);
    const after = JSON.parse((await cli("ls", "parcels", "--json")).stdout) as LsRow[];
    expect(after.filter((r) => r.region === "weld").map((r) => [r.date, r.rows, r.refused !== null])).toEqual([
      ["2026-01-01", 10, false],
      ["2026-02-01", 0, true],
    ]);
  }, 60_000);
});
