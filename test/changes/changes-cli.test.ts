/**
 * `georefresh changes` and `openDataset(...).changes(...)`: the change between two dates equals the composition of
 * the stored changelogs in between; every output format says the same; DuckDB reads the Parquet form.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDataset } from "../../src/views/reader.js";
import { runCliHere } from "../helpers/cli.js";
import { duckdb, rows } from "../helpers/duckdb.js";
import { dateTwo, parcels, writeFeed } from "../helpers/parcels-task.js";

const [D1, D2, D3] = ["2026-03-01", "2026-03-02", "2026-03-03"];

interface JsonChange {
  id: string;
  change: string;
  columns: string[];
  before_digest: string | null;
  after_digest: string | null;
}
interface JsonSet {
  counts: Record<string, number>;
  changes: JsonChange[];
  from: { logical_date: string } | null;
}

/** Two consecutive change sets as one: per key, the first before and the last after; a round trip vanishes. */
function compose(first: JsonChange[], second: JsonChange[]): string[] {
  const ends = new Map<string, { before: string | null; after: string | null; kinds: Set<string> }>();
  for (const c of [...first, ...second]) {
    const e = ends.get(c.id);
    if (!e) ends.set(c.id, { before: c.before_digest, after: c.after_digest, kinds: new Set([c.change]) });
    else {
      if (first.includes(c) || e.after !== c.after_digest) e.after = c.after_digest;
      e.kinds.add(c.change);
    }
  }
  const out: string[] = [];
  for (const [id, e] of ends) {
    if (e.before === e.after) continue;
    if (e.before === null) out.push(`${id} added`);
    else if (e.after === null) out.push(`${id} removed`);
    else {
      // which parts differ: the digest is attributes (16 hex) then geometry (16 hex)
      if (e.before.slice(16) !== e.after.slice(16)) out.push(`${id} geometry_changed`);
      if (e.before.slice(0, 16) !== e.after.slice(0, 16)) out.push(`${id} attributes_changed`);
    }
  }
  return out.sort();
}

describe("georefresh changes", () => {
  let dir: string;
  let config: string;
  const cli = (...args: string[]) => runCliHere([...args, "--config", config]);
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "georefresh-changes-cli-"));
    const helper = fileURLToPath(new URL("../helpers/parcels-task.ts", import.meta.url));
    writeFileSync(
      join(dir, "task.mjs"),
      `import { parcelsTask } from ${JSON.stringify(helper)};\nexport default parcelsTask(${JSON.stringify(dir)});\n`,
    );
    writeFileSync(join(dir, "versions.json"), "{}");
    config = join(dir, "config.json");
    writeFileSync(
      config,
      JSON.stringify({
        store: "./store",
        versions: "./versions.json",
        datasets: { parcels: { module: "./task.mjs" } },
      }),
    );
    const base = parcels(60);
    const two = dateTwo(base);
    // Date 3 takes back P-0020's rezoning (A→B→A), removes P-9001 again and moves P-0030.
    const three = two
      .filter((p) => p.parcel_id !== "P-9001")
      .map((p) =>
        p.parcel_id === "P-0020" ? { ...p, zoning: "R1" } : p.parcel_id === "P-0030" ? { ...p, y: p.y + 0.001 } : p,
      );
    for (const region of ["weld", "larimer"]) {
      writeFeed(dir, region, D1, base);
      writeFeed(dir, region, D2, two);
      writeFeed(dir, region, D3, three);
    }
    const r = await cli("backfill", "--dataset", "parcels", "--from", D1, "--to", D3);
    expect(r.code, r.stderr).toBe(0);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const json = async (...args: string[]) => {
    const r = await cli("changes", "parcels", "--region", "weld", ...args, "--json");
    expect(r.code, r.stderr).toBe(0);
    return JSON.parse(r.stdout) as JsonSet;
  };

  it("between two dates equals the stored changelogs composed, and --date equals the step before it", async () => {
    const step2 = await json("--date", D2);
    const step3 = await json("--date", D3);
    expect(step2).toEqual(await json("--from", D1, "--to", D2));
    expect(step3).toEqual(await json("--from", D2, "--to", D3));
    expect(step2.counts).toEqual({ added: 3, removed: 2, geometry_changed: 4, attributes_changed: 5, unchanged: 50 });
    const whole = await json("--from", D1, "--to", D3);
    expect(whole.changes.map((c) => `${c.id} ${c.change}`).sort()).toEqual(compose(step2.changes, step3.changes));
    expect(whole.changes.some((c) => c.id === "P-0020" && c.change === "attributes_changed")).toBe(false);
    expect(whole.changes.filter((c) => c.id === "P-0030").map((c) => c.change)).toEqual(["geometry_changed"]);
    // The library gives the same answer.
    const ds = openDataset(join(dir, "store"), "parcels");
    const lib = await ds.changes("weld", { from: D1, to: D3 });
    expect(lib.counts).toEqual(whole.counts);
    expect(lib.changes.length).toBe(whole.changes.length);
  });

  it("writes GeoJSON with the after geometry (the before one for removals), text, and Parquet DuckDB reads", async () => {
    const geo = await cli("changes", "parcels", "--region", "weld", "--date", D2, "--format", "geojson");
    expect(geo.code, geo.stderr).toBe(0);
    const fc = JSON.parse(geo.stdout) as {
      features: { properties: { parcel_id: string; change: string }; geometry: { coordinates: number[][][] } }[];
    };
    expect(fc.features).toHaveLength(14);
    const removed = fc.features.find((f) => f.properties.parcel_id === "P-0001");
    expect(removed?.properties.change).toBe("removed");
    expect(removed?.geometry.coordinates[0]?.[0]).toEqual([-104.78, 40.3]); // where P-0001 was
    const moved = fc.features.find((f) => f.properties.parcel_id === "P-0011" && f.properties.change !== "removed");
    expect(moved?.geometry.coordinates[0]?.[0]?.[0]).toBeCloseTo(-104.8 + 11 * 0.02 + 0.001, 9); // where it is now

    const text = await cli("changes", "parcels", "--region", "weld", "--date", D2);
    expect(text.stdout.split("\n")[0]).toBe(
      `parcels weld ${D1} → ${D2}: 3 added, 2 removed, 4 geometry changed, 5 attributes changed, 50 unchanged`,
    );
    expect(text.stdout).toContain("P-0020\tattributes_changed\tzoning\n");

    const file = join(dir, "d2.parquet");
    const pq = await cli("changes", "parcels", "--region", "weld", "--date", D2, "--format", "parquet", "--out", file);
    expect(pq.code, pq.stderr).toBe(0);
    const got = await rows(
      await duckdb(),
      `SELECT change, count(*)::INT AS n FROM '${file}' GROUP BY change ORDER BY change`,
    );
    expect(got).toEqual([
      { change: "added", n: 3 },
      { change: "attributes_changed", n: 5 },
      { change: "geometry_changed", n: 4 },
      { change: "removed", n: 2 },
    ]);
    // The stored changelog, as DuckDB reads it from the store, is the same table.
    const entry = JSON.parse((await cli("show", "parcels", "--region", "weld", "--date", D2)).stdout) as {
      current: { changes: { changelog: string; counts: Record<string, number> } };
    };
    expect(entry.current.changes.counts.added).toBe(3);
    const stored = join(dir, "store", entry.current.changes.changelog);
    expect(readFileSync(stored).equals(readFileSync(file))).toBe(true);
  });

  it("lists the changelog as a STAC asset and stripes the report's cells by how much changed", async () => {
    expect((await cli("stac", "parcels")).code).toBe(0);
    const itemPath = join(dir, "store", "stac", "parcels", "items", `parcels-weld-${D2}.json`);
    const item = JSON.parse(readFileSync(itemPath, "utf8")) as {
      assets: Record<string, { href: string; roles: string[]; "file:size": number; description: string }>;
    };
    const asset = item.assets.changes;
    expect(asset?.roles).toEqual(["metadata", "changelog"]);
    expect(asset?.description).toContain("3 added, 2 removed");
    const changelog = fileURLToPath(new URL(asset?.href as string, pathToFileURL(itemPath)));
    expect(changelog).toContain(`/changes/parcels/region=weld/date=${D2}/`);
    expect(readFileSync(changelog).byteLength).toBe(asset?.["file:size"]);
    const html = join(dir, "report.html");
    expect((await cli("report", "parcels", "--html", html)).code).toBe(0);
    const page = readFileSync(html, "utf8");
    const cell = (date: string) =>
      new RegExp(`data-region="weld" data-date="${date}"[^>]*data-change-step="(\\d)"[^>]*title="([^"]*)"`).exec(page);
    expect(cell(D1)?.[1]).toBe("3"); // a first version: every key added
    expect(cell(D2)?.[1]).toBe("3"); // 13 of 63 keys changed: over 10 %
    expect(cell(D2)?.[2]).toContain("changes: 3 added, 2 removed, 4 geometry, 5 attributes, 50 unchanged");
    expect(page).toContain("row-level change:");
  });

  it("puts the counts in ls --json, and says plainly what is wrong", async () => {
    const ls = JSON.parse((await cli("ls", "parcels", "--json")).stdout) as {
      region: string;
      date: string;
      changes: Record<string, number> | null;
    }[];
    expect(ls.find((r) => r.region === "weld" && r.date === D2)?.changes?.removed).toBe(2);
    const backwards = await cli("changes", "parcels", "--region", "weld", "--from", D2, "--to", D1);
    // a reversed window is the command line's mistake, exit 2, as for backfill and finalize (issue 51)
    expect(backwards.code).toBe(2);
    expect(backwards.stderr).toMatch(/--from 2026-03-02 is after --to 2026-03-01/);
    const neither = await cli("changes", "parcels", "--region", "weld");
    expect(neither.code).toBe(2);
    expect(neither.stderr).toMatch(/give --from D1 --to D2/);
    const missing = await cli("changes", "parcels", "--region", "weld", "--from", "2026-02-01", "--to", D2);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/no manifest for region weld on 2026-02-01/);
  });
});
