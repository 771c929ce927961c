/**
 * Feeds as other tools leave them (test/helpers/wild_corpus.py: code pages, Z/M/ZM, MultiPatch, rings wound
 * either way, odd .prj files, 64-bit integers past 2^53, every OGR field type, empty and null geometries,
 * aspatial layers, GDAL's and spreadsheets' CSVs): each is read as OGR reads it, or refused with a message
 * naming the file, with nothing published. Where OGR builds an invalid polygon (rings wound against the spec),
 * georefresh nests rings by containment instead, and the test says so.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCliHere } from "../helpers/cli.js";
import { duckdb, rows } from "../helpers/duckdb.js";
import { rfc7946Winding } from "../../src/geo/winding.js";
import { positions, readRows } from "../helpers/geojson-rows.js";
import type { Geometry, Row } from "../helpers/geojson-rows.js";

const CORPUS = fileURLToPath(new URL("../helpers/wild_corpus.py", import.meta.url));
const JUDGE = fileURLToPath(new URL("../helpers/ogr_judge.py", import.meta.url));

interface ReadCase {
  dataset: string;
  source: Record<string, unknown>;
  judge: { file: string; layer?: string; crs?: string; open?: string[] };
  id: string;
  rows: number;
  /** More of the dataset's config (a zero-feature file's plausibility). */
  settings?: Record<string, unknown>;
}
interface RefuseCase {
  dataset: string;
  source: Record<string, unknown>;
  refuse: string;
}

const dir = mkdtempSync(join(tmpdir(), "georefresh-wild-"));
const cases = JSON.parse(
  execFileSync("/usr/bin/python3", [CORPUS, dir], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }),
) as (ReadCase | RefuseCase)[];
const reads = cases.filter((c): c is ReadCase => "judge" in c);
const refusals = cases.filter((c): c is RefuseCase => "refuse" in c);
const config = join(dir, "georefresh.config.json");
const outcomes = new Map<string, { code: number; out: string }>();

function judge(c: ReadCase): { features: Row[]; types: Record<string, [string, string]> } {
  const j = c.judge;
  const out = execFileSync(
    "/usr/bin/python3",
    [JUDGE, join(dir, j.file), j.layer ?? "", j.crs ?? "", "", ...(j.open ?? [])],
    {
      encoding: "utf8",
      maxBuffer: 64 * 2 ** 20,
    },
  );
  return JSON.parse(out) as { features: Row[]; types: Record<string, [string, string]> };
}

const ours = (dataset: string) => readRows(dataset, config, "wild");

/** A polygonal geometry's rings, shells and holes alike. */
function ringsOf(g: Geometry): number[][][] {
  if (g?.type === "Polygon") return g.coordinates as number[][][];
  if (g?.type === "MultiPolygon") return (g.coordinates as number[][][][]).flat();
  return [];
}

const text = (v: unknown) => (typeof v === "string" ? v : typeof v === "bigint" ? String(v) : JSON.stringify(v));

/**
 * An OGR value beside ours, by the OGR field's type. GeoParquet has no list or JSON columns of ours: a list or
 * a JSON object is kept as its JSON text, which must parse to the same value. A boolean is 0/1 to OGR's Python.
 */
function same(theirs: unknown, mine: unknown, [type, sub]: [string, string]): boolean {
  if (theirs === null) return mine === null || (type.endsWith("List") && mine === "[]");
  if (mine === null || mine === undefined) return false;
  if (type.endsWith("List") || sub === "JSON") {
    // OGR marks a column of mixed types JSON too, with values that are not ("one"): those compare as text.
    const json = (v: unknown) => {
      if (typeof v !== "string") return JSON.stringify(v);
      try {
        return JSON.stringify(JSON.parse(v));
      } catch {
        return v;
      }
    };
    return json(theirs) === json(mine);
  }
  if (sub === "Boolean") return Number(theirs) === Number(mine);
  if (type === "Date") return String(mine).slice(0, 10) === theirs;
  if (type === "DateTime") {
    const zoned = (s: string) => (/(Z|[+-]\d\d(:?\d\d)?)$/.test(s) ? s : `${s}Z`);
    return Date.parse(zoned(String(mine))) === Date.parse(zoned(String(theirs)));
  }
  if (type === "Integer64" || type === "Integer") return String(mine) === String(theirs);
  if (type === "Real") return Number(mine) === Number(theirs);
  return text(mine) === text(theirs);
}

describe("feeds from the wild read as OGR reads them, or are refused naming the file", () => {
  beforeAll(async () => {
    const datasets = Object.fromEntries(
      cases.map((c) => [
        c.dataset,
        { source: c.source, regions: ["wild"], cadence: "monthly", ...("settings" in c ? c.settings : {}) },
      ]),
    );
    writeFileSync(config, JSON.stringify({ store: "./data", datasets }));
    for (const c of cases) {
      const r = await runCliHere([
        "backfill",
        "--config",
        config,
        "--dataset",
        c.dataset,
        "--from",
        "2026-01-01",
        "--to",
        "2026-01-31",
      ]);
      outcomes.set(c.dataset, { code: r.code ?? -1, out: r.stdout + r.stderr });
    }
  }, 240_000);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("says so where curves were read as straight segments: the outcome line and each artifact's footer", async () => {
    // Every curve case has one feature that is a plain line (k 0 of CURVES) or a point, which is not counted.
    for (const [dataset, curves] of [
      ["gpkg-curves", 8],
      ["fgb-curves", 8],
      ["csv-curves", 8],
      ["gpkg-curves-utm", 3],
      ["fgb-curves-collection", 1],
    ] as const) {
      const out = outcomes.get(dataset)?.out ?? "";
      expect(out, dataset).toContain(
        `; ${curves} curve${curves > 1 ? "s" : ""} read as straight segments, as OGR makes them, in 1 partition`,
      );
      const artifacts = readdirSync(join(dir, "data", "artifacts", dataset), { recursive: true })
        .map(String)
        .filter((f) => f.endsWith(".parquet"));
      expect(artifacts, dataset).toHaveLength(1);
      const kv = await rows(
        await duckdb(),
        `SELECT decode(value) AS v FROM parquet_kv_metadata('${join(dir, "data", "artifacts", dataset, artifacts[0] as string)}') WHERE decode(key) = 'georefresh:linearized_curves'`,
      );
      expect(
        kv.map((r) => String(r.v)),
        dataset,
      ).toEqual([String(curves)]);
    }
    // A file without curves says nothing of them.
    expect(outcomes.get("gpkg-measures")?.out).not.toContain("straight segments");
  });

  it("the corpus covers what the issue names", () => {
    const names = cases.map((c) => c.dataset);
    for (const want of [
      /cp1252/,
      /cp1251/,
      /cp932/,
      /iso88591/,
      /utf8-nocpg/,
      /^shp-utf8$/,
      /-m$/,
      /-zm$/,
      /-z$/,
      /multipatch/,
      /rings/,
      /prj-esri/,
      /prj-bom/,
      /gpkg-typed/,
      /fgb-typed/,
      /empties/,
      /geojson-types/,
      /aspatial/,
      /trailing-comma/,
      /zero-features/,
      /triangle/,
      /measures/,
      /curves/,
      /curves-utm/,
      /curves-collection/,
      /geojson-ids/,
      /mixed-dimensions/,
      /prototype-names/,
      /top-feature/,
      /top-geometry/,
      /semicolon/,
      /blank-line/,
      /cpg-big-5/,
      /cpg-html/,
      /dbf-short-records/,
      /longer-than-declared/,
      /wal-edit/,
    ])
      expect(
        names.some((n) => want.test(n)),
        String(want),
      ).toBe(true);
  });

  it.each(reads.map((c) => [c.dataset, c] as const))(
    "%s: same rows, attributes and coordinates (1e-7°)",
    async (_, c) => {
      const outcome = outcomes.get(c.dataset);
      expect(outcome?.code, outcome?.out).toBe(0);
      const judged = judge(c);
      const { types } = judged;
      // Our GeoJSON winds rings as RFC 7946 says (test/geo/winding.test.ts judges that by shapely); OGR's keeps
      // the file's order. The same rings, compared in one orientation.
      const theirs = judged.features.map((f) => ({ ...f, geometry: rfc7946Winding(f.geometry as never) as Geometry }));
      const mine = await ours(c.dataset);
      expect(theirs).toHaveLength(c.rows);
      expect(mine).toHaveLength(c.rows);
      const byId = new Map(mine.map((f) => [String(f.properties[c.id]), f]));
      let worst = 0;
      for (const t of theirs) {
        const m = byId.get(String(t.properties[c.id]));
        expect(m, `${c.dataset} ${String(t.properties[c.id])}`).toBeDefined();
        const row = m as Row;
        const where = `${c.dataset} row ${String(t.properties[c.id])}`;
        const geometryColumns = c.source.geometry ? Object.values(c.source.geometry as Record<string, string>) : [];
        for (const [k, v] of Object.entries(t.properties)) {
          if (geometryColumns.includes(k)) continue;
          expect(Object.hasOwn(row.properties, k), `${where}: column ${k}`).toBe(true);
          expect(
            same(v, row.properties[k], types[k] ?? ["String", "None"]),
            `${where}, ${k}: OGR ${text(v)}, ours ${text(row.properties[k])}`,
          ).toBe(true);
        }
        const a = positions(row.geometry);
        if (t.geometry === null) {
          // GeoParquet has no null geometry: a missing one is an empty one.
          expect(a, where).toEqual([]);
          continue;
        }
        const b = positions(t.geometry);
        if (/^shp-(rings|polys-zm?)$/.test(c.dataset) && t.geometry.type !== row.geometry?.type) {
          // OGR 3.6 keeps a hole wound as a shell as a shell (overlapping shells) and a shell wound as a hole as a
          // hole outside its shell: both invalid, which validation refuses. Ours nests rings by containment: the
          // same rings, point for point, as a valid polygon (the backfill above validated every geometry).
          const mineRings = ringsOf(row.geometry);
          const theirRings = ringsOf(t.geometry);
          expect(mineRings.length, where).toBe(theirRings.length);
          for (const r of theirRings) {
            const same = (m: number[][], q: number[][]) =>
              m.length === q.length && m.every((p, i) => p.every((v, k) => Math.abs(v - (q[i]?.[k] as number)) < 1e-7));
            // in either orientation: OGR's invalid nesting and ours wind these rings by different roles
            const reversed = [r[0] as number[], ...r.slice(1, -1).reverse(), r[r.length - 1] as number[]];
            const match = mineRings.find((m) => same(m, r) || same(m, reversed));
            expect(match, `${where}: ring ${JSON.stringify(r)}`).toBeDefined();
          }
          continue;
        }
        expect(row.geometry?.type, where).toBe(t.geometry.type);
        expect(a.length, where).toBe(b.length);
        a.forEach((p, i) => {
          const q = b[i] as number[];
          // M is a measure, not a position: OGR's GeoJSON keeps x, y (and z); so does GeoParquet.
          expect(p.length, where).toBe(Math.min(q.length, 3));
          p.forEach((v, k) => (worst = Math.max(worst, Math.abs(v - (q[k] as number)))));
        });
      }
      expect(worst).toBeLessThan(1e-7);
    },
  );

  it.each(refusals.map((c) => [c.dataset, c] as const))(
    "%s: refused (exit 5), naming the file, nothing published",
    (_, c) => {
      const outcome = outcomes.get(c.dataset) as { code: number; out: string };
      expect(outcome.code, outcome.out).toBe(5);
      expect(outcome.out).toMatch(new RegExp(c.refuse));
      expect(outcome.out).not.toMatch(/\n\s+at .*\(.*:\d+:\d+\)/);
      // A message never holds U+FFFD: bytes it cannot show as text are shown as \xNN.
      expect(outcome.out).not.toContain("\uFFFD");
      expect(existsSync(join(dir, "data", "artifacts", c.dataset))).toBe(false);
    },
  );
});
