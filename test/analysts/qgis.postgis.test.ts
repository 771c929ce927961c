/**
 * QGIS, the analysts' desktop GIS (Debian's 3.22, headless), opens what `georefresh sink` wrote as layers, the way
 * an analyst adds them: the GeoPackage through OGR and the PostGIS table through QGIS's own PostgreSQL provider.
 * Each: valid, every row a feature, the CRS we wrote, one county's attributes, and a map drawn from it.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { runCliHere } from "../helpers/cli.js";
import { pgSchemas } from "../helpers/pg-schemas.js";

const JUDGE = fileURLToPath(new URL("../helpers/qgis_judge.py", import.meta.url));
const BRISTOL = `"geoid" = '44001'`; // Bristol County, Rhode Island

interface Seen {
  valid: boolean;
  error?: string;
  count: number;
  crs: string;
  fields: string[];
  chosen: Record<string, string> | null;
  colours: number;
}

function qgis(uri: string, provider: "ogr" | "postgres", png: string): Seen {
  const out = execFileSync("/usr/bin/python3", [JUDGE, uri, provider, png, BRISTOL], {
    encoding: "utf8",
    timeout: 60_000,
    env: { ...process.env, QT_QPA_PLATFORM: "offscreen" },
  });
  return JSON.parse(out.trim().split("\n").pop() as string) as Seen;
}

describe("QGIS opens the sinks' tables as layers", () => {
  let dir: string;
  let inserted: number;
  const { schema, to, dropAll } = pgSchemas();
  const target = schema("qgis");

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "georefresh-qgis-"));
    const versions = JSON.parse(readFileSync(new URL("../../versions.json", import.meta.url), "utf8")) as unknown;
    writeFileSync(join(dir, "versions.json"), JSON.stringify(versions));
    const config = join(dir, "georefresh.config.json");
    writeFileSync(
      config,
      JSON.stringify({
        store: "./store",
        versions: "./versions.json",
        datasets: { "us-counties": { task: "us-counties" } },
      }),
    );
    const run = await runCliHere([
      "backfill",
      "--dataset",
      "us-counties",
      "--from",
      "2026-01-01",
      "--to",
      "2026-01-01",
      "--regions",
      "RI,CT,DE",
      "--config",
      config,
      "--quiet",
    ]);
    expect(run.code, run.stderr).toBe(0);
    const gpkg = await runCliHere([
      "sink",
      "us-counties",
      "--to",
      join(dir, "counties.gpkg"),
      "--config",
      config,
      "--json",
    ]);
    expect(gpkg.code, gpkg.stderr).toBe(0);
    inserted = (JSON.parse(gpkg.stdout) as { rows: { inserted: number } }).rows.inserted;
    const db = await runCliHere(["sink", "us-counties", "--to", to(target), "--config", config, "--json"]);
    expect(db.code, db.stderr).toBe(0);
  }, 120_000);

  afterAll(async () => {
    const client = new pg.Client({ connectionString: inject("postgres") as string });
    await client.connect();
    await dropAll(client);
    await client.end();
    rmSync(dir, { recursive: true, force: true });
  });

  const expectLayer = (seen: Seen, png: string) => {
    expect(seen.valid, seen.error).toBe(true);
    expect(inserted).toBe(16); // RI 5, CT 8, DE 3
    expect(seen.count).toBe(inserted);
    expect(seen.crs).toBe("EPSG:4326");
    expect(seen.fields).toEqual(expect.arrayContaining(["region", "geoid", "name", "state", "area_km2", "valid_from"]));
    expect(seen.chosen).toMatchObject({ region: "RI", geoid: "44001", name: "Bristol", state: "RI" });
    // A map with something on it: fills and outlines over the white background.
    expect(seen.colours).toBeGreaterThan(3);
    expect(statSync(png).size).toBeGreaterThan(5_000);
  };

  it("the GeoPackage, through OGR", () => {
    const png = join(dir, "gpkg.png");
    expectLayer(qgis(`${join(dir, "counties.gpkg")}|layername=us_counties`, "ogr", png), png);
  });

  it("the PostGIS table, through QGIS's PostgreSQL provider", () => {
    const url = new URL(inject("postgres") as string);
    const uri = [
      `dbname='${url.pathname.slice(1)}'`,
      `host=${url.hostname}`,
      `port=${url.port || "5432"}`,
      `user='${decodeURIComponent(url.username)}'`,
      `table="${target}"."us_counties" (geom)`,
    ].join(" ");
    const png = join(dir, "postgis.png");
    expectLayer(qgis(uri, "postgres", png), png);
  });
});
