/**
 * Issue 40: the wrong results and failing messages a new user found on config-only sources — an undated feed
 * copied into past dates, a wrong declared CRS promoted, State Plane refused (and one bad entry failing every
 * dataset), a bare Shapefile without .prj blamed on ENOENT, a missing feed at exit 5 once per partition, readers
 * answering 0 on a store that does not exist. Each is judged through the CLI, the way the user met it.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { crsFromCode, storageCrsOf } from "../../src/geo/crs/crs.js";
import { tableFromCompute } from "../../src/task/compute-output.js";
import { runCliHere } from "../helpers/cli.js";
import { geopandasPython } from "../helpers/geopandas.js";
import { writeCorpus } from "../helpers/source-corpus.js";

const JUDGE = fileURLToPath(new URL("../helpers/ogr_judge.py", import.meta.url));
let dir: string;

function configure(name: string, datasets: Record<string, unknown>): string {
  const path = join(dir, `${name}.config.json`);
  writeFileSync(path, JSON.stringify({ store: `./${name}-data`, datasets }));
  return path;
}

const backfill = async (config: string, dataset: string, from: string, to: string) => {
  const r = await runCliHere(["backfill", "--config", config, "--dataset", dataset, "--from", from, "--to", to]);
  return { ...r, out: r.stdout + r.stderr };
};

const datesBuilt = (store: string, dataset: string, region: string) => {
  const at = join(dir, store, "manifests", dataset, `region=${region}`);
  return existsSync(at) ? readdirSync(at).sort() : [];
};

/** What `read` gives for a dataset's Denver partition, latest date, as GeoJSON. */
function readDenver(config: string, dataset: string) {
  return runCliHere([
    "read",
    dataset,
    "--config",
    config,
    "--region",
    "denver",
    "--latest-date",
    "--format",
    "geojson",
  ]);
}

describe("a new user's config-only sources", () => {
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "georefresh-new-user-"));
    writeCorpus(dir);
    mkdirSync(join(dir, "feeds"));
    // Two points in lon/lat, and the same two in Colorado Central State Plane (US feet), written by ogr2ogr.
    writeFileSync(join(dir, "feeds", "lonlat.csv"), "id,X,Y\na,-104.99,39.74\nb,-105.27,40.01\n");
    execFileSync("ogr2ogr", [
      "-f",
      "GeoJSON",
      "-s_srs",
      "EPSG:4326",
      "-t_srs",
      "EPSG:2232",
      "-oo",
      "X_POSSIBLE_NAMES=X",
      "-oo",
      "Y_POSSIBLE_NAMES=Y",
      "-lco",
      "RFC7946=NO",
      join(dir, "feeds", "sp.geojson"),
      join(dir, "feeds", "lonlat.csv"),
    ]);
    // A bare Shapefile without its .prj.
    mkdirSync(join(dir, "weld", "noprj"));
    for (const e of ["shp", "shx", "dbf"])
      writeFileSync(
        join(dir, "weld", "noprj", `parcels.${e}`),
        execFileSync("cat", [join(dir, "weld", "ldid", `parcels.${e}`)]),
      );
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("a feed url without {date} is read for the window's last date only, never copied into the past (item 4)", async () => {
    const config = configure("undated", {
      today: { source: { url: "./{region}/parcels.geojson" }, regions: ["weld"], cadence: "daily" },
      always: {
        source: { url: "./{region}/parcels.geojson", undated: "every-date" },
        regions: ["weld"],
        cadence: "daily",
      },
    });
    const r = await backfill(config, "today", "2026-11-01", "2026-11-05");
    expect(r.code, r.out).toBe(0);
    expect(r.stdout).toMatch(/^today: 1 partition: 1 promoted/);
    expect(r.stderr).toMatch(
      /feed url of today has no \{date\}, so its file is the feed as it is now, not as it was: only 2026-11-05, the window's last date, reads it; the 4 earlier dates are left as they are \(put \{date\} in the url/,
    );
    expect(datesBuilt("undated-data", "today", "weld")).toEqual(["date=2026-11-05.json"]);
    // The next night's window leaves the 5th as it was, and builds the 6th.
    const next = await backfill(config, "today", "2026-11-04", "2026-11-06");
    expect(next.code, next.out).toBe(0);
    expect(datesBuilt("undated-data", "today", "weld")).toEqual(["date=2026-11-05.json", "date=2026-11-06.json"]);
    // Said explicitly, the same file is every date's.
    const every = await backfill(config, "always", "2026-11-01", "2026-11-03");
    expect(every.code, every.out).toBe(0);
    expect(every.stdout).toMatch(/3 promoted/);
    expect(every.stderr).not.toMatch(/no \{date\}/);
    // "undated" on a dated url is a mistake, said when the config loads.
    const dated = configure("dated", {
      d: { source: { url: "./{region}/{date}.geojson", undated: "latest" }, regions: ["weld"], cadence: "daily" },
    });
    const bad = await backfill(dated, "d", "2026-11-01", "2026-11-01");
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/"source.undated" is for a url without \{date\}; this one has \{date\}/);
  });

  it("coordinates outside the declared CRS's area of use are refused, naming where they land (item 5)", async () => {
    const config = configure("wrongcrs", {
      wrong: {
        source: { url: "./feeds/lonlat.csv", crs: "EPSG:26913", geometry: { x: "X", y: "Y" } },
        regions: ["weld"],
        cadence: "daily",
      },
    });
    const r = await backfill(config, "wrong", "2026-11-01", "2026-11-01");
    expect(r.code, r.out).toBe(1);
    expect(r.out).toMatch(
      /2 of 2 rows \(row 0, 1\) lie outside the area of use of EPSG:26913 \(NAD83 \/ UTM zone 13N: lon -108…-102, lat 28\.98…84\) .* lands at lon\/lat \(-109\.\d+ 0\.000\d\)/,
    );
    expect(existsSync(join(dir, "wrongcrs-data", "artifacts"))).toBe(false);
    // A task's own compute is held to the same rule: lon/lat declared as UTM 13N.
    const features = [{ geometry: { type: "Point" as const, coordinates: [-104.9, 40.3] }, properties: {} }];
    await expect(
      tableFromCompute(Promise.resolve(features), { from: crsFromCode("EPSG:26913"), to: crsFromCode("OGC:CRS84") }),
    ).rejects.toThrow(/outside the area of use of EPSG:26913/);
    // The same coordinates in UTM metres pass.
    const utm = [{ geometry: { type: "Point" as const, coordinates: [508_500, 4_461_000] }, properties: {} }];
    const ok = await tableFromCompute(Promise.resolve(utm), {
      from: crsFromCode("EPSG:26913"),
      to: crsFromCode("OGC:CRS84"),
    });
    expect(ok.table.numRows).toBe(1);
  });

  it("any EPSG code reads (State Plane 2232 agrees with OGR + PROJ); one bad entry fails alone (item 6)", async () => {
    const config = configure("epsg", {
      stateplane: {
        source: { url: "./feeds/sp.geojson", crs: "EPSG:2232", undated: "every-date" },
        regions: ["denver"],
        cadence: "daily",
      },
      typo: { source: { url: "./feeds/sp.geojson", crs: "EPSG:99999999" }, regions: ["denver"], cadence: "daily" },
      nad27: {
        source: { url: "./feeds/lonlat.csv", crs: "EPSG:4267", geometry: { x: "X", y: "Y" } },
        regions: ["denver"],
        cadence: "daily",
      },
      stored: {
        source: { url: "./feeds/sp.geojson", crs: "EPSG:2232" },
        storageCrs: "EPSG:2232",
        regions: ["denver"],
        cadence: "daily",
      },
    });
    const r = await backfill(config, "stateplane", "2026-11-01", "2026-11-01");
    expect(r.code, r.out).toBe(0);
    const read = await readDenver(config, "stateplane");
    expect(read.code, read.stderr).toBe(0);
    type F = { properties: { id: string }; geometry: { coordinates: number[] } };
    const ours = (JSON.parse(read.stdout) as { features: F[] }).features;
    const theirs = (
      JSON.parse(
        execFileSync("/usr/bin/python3", [JUDGE, join(dir, "feeds", "sp.geojson"), "", "EPSG:2232", ""], {
          encoding: "utf8",
        }),
      ) as { features: F[] }
    ).features;
    expect(ours).toHaveLength(2);
    for (const t of theirs) {
      const m = ours.find((f) => f.properties.id === t.properties.id) as F;
      expect(Math.abs((m.geometry.coordinates[0] as number) - (t.geometry.coordinates[0] as number))).toBeLessThan(
        1e-7,
      );
      expect(Math.abs((m.geometry.coordinates[1] as number) - (t.geometry.coordinates[1] as number))).toBeLessThan(
        1e-7,
      );
    }
    // And the points are where the lon/lat file says they are.
    expect((ours.find((f) => f.properties.id === "a") as F).geometry.coordinates[0]).toBeCloseTo(-104.99, 6);

    const typo = await backfill(config, "typo", "2026-11-01", "2026-11-01");
    expect(typo.code).toBe(2);
    expect(typo.stderr).toMatch(
      /dataset 'typo': "source.crs": unknown CRS "EPSG:99999999": no 2D geographic or projected CRS has that EPSG code/,
    );
    // NAD27 without its grids is read as PROJ reads it then: by the Helmert shift EPSG registers for the area.
    const nad27 = await backfill(config, "nad27", "2026-11-01", "2026-11-01");
    expect(nad27.code, nad27.out).toBe(0);
    const nad27Read = await readDenver(config, "nad27");
    const shifted = (JSON.parse(nad27Read.stdout) as { features: F[] }).features;
    const proj = JSON.parse(
      execFileSync(
        geopandasPython(),
        [
          "-c",
          "import json;from pyproj import Transformer;t=Transformer.from_crs(4267,4326,always_xy=True);" +
            "print(json.dumps([t.transform(-104.99,39.74),t.transform(-105.27,40.01)]))",
        ],
        { encoding: "utf8" },
      ),
    ) as [number, number][];
    for (const [i, id] of ["a", "b"].entries()) {
      const c = (shifted.find((f) => f.properties.id === id) as F).geometry.coordinates;
      const q = proj[i] as [number, number];
      expect(Math.abs((c[0] as number) - q[0])).toBeLessThan(1e-7);
      expect(Math.abs((c[1] as number) - q[1])).toBeLessThan(1e-7);
    }
    // … which moves the points by metres, as a datum shift does.
    expect(Math.abs(((proj[0] as [number, number])[0] as number) + 104.99)).toBeGreaterThan(1e-5);
    const stored = await backfill(config, "stored", "2026-11-01", "2026-11-01");
    expect(stored.code).toBe(2);
    expect(stored.stderr).toMatch(/EPSG:2232 .* can be read from, but georefresh cannot store artifacts in it/);
    expect(() => storageCrsOf("EPSG:5070")).not.toThrow();
  });

  it("messages: no .prj says add crs, a missing feed is exit 2 said once, a store that is not there is exit 2 (item 7)", async () => {
    const config = configure("messages", {
      noprj: { source: { url: "./{region}/noprj/parcels.shp" }, regions: ["weld"], cadence: "daily" },
      missing: {
        source: { url: "./nowhere/{region}/{date}.geojson" },
        regions: ["weld", "larimer"],
        cadence: "daily",
      },
    });
    const noprj = await backfill(config, "noprj", "2026-11-01", "2026-11-01");
    expect(noprj.code, noprj.out).toBe(5);
    expect(noprj.out).toMatch(
      /parcels\.shp does not say its CRS \(it has no \.prj\) and the source declares none; add "crs"/,
    );
    expect(noprj.out).not.toMatch(/ENOENT/);

    const missing = await backfill(config, "missing", "2026-11-01", "2026-11-03");
    expect(missing.code, missing.out).toBe(2);
    expect(missing.out).not.toMatch(/ENOENT/);
    expect(missing.stdout).toMatch(/6 failed/);
    // Each region's dates name their own file: six lines, each saying it does not exist.
    expect(missing.stderr.match(/does not exist; check the path/g)).toHaveLength(6);

    const oneFile = configure("onefile", {
      gone: { source: { url: "./nowhere/feed.geojson", undated: "every-date" }, regions: ["a", "b"], cadence: "daily" },
    });
    const gone = await backfill(oneFile, "gone", "2026-11-01", "2026-11-03");
    expect(gone.code, gone.out).toBe(2);
    // One file behind all six partitions: said once, then counted.
    expect(gone.stderr.match(/^\d+\/6 failed .*nowhere\/feed\.geojson does not exist/gm)).toHaveLength(1);
    expect(gone.stderr).toMatch(
      /… and 5 more partitions failed the same way \(input .*nowhere\/feed\.geojson does not exist/,
    );

    // A task's own bug says where it was thrown, on worker threads too.
    const helper = new URL("../../src/index.ts", import.meta.url).href;
    writeFileSync(
      join(dir, "bug-task.mjs"),
      `import { defineTask } from ${JSON.stringify(helper)};\nexport default defineTask({ name: "bug", version: "1", cadence: "daily", regions: ["a", "b"], inputs: () => ({}), crs: "OGC:CRS84",\n  async compute() { const rows = undefined; return rows.map((r) => r); } });\n`,
    );
    const bug = configure("bug", { bug: { module: "./bug-task.mjs" } });
    for (const workers of ["0", "2"]) {
      const r = await runCliHere([
        "backfill",
        "--config",
        bug,
        "--dataset",
        "bug",
        "--from",
        "2026-11-01",
        "--to",
        "2026-11-01",
        "--workers",
        workers,
      ]);
      expect(r.code, r.stderr).toBe(5);
      expect(r.stderr).toMatch(/reading 'map'\) \(thrown at .*bug-task\.mjs:3:\d+\)/);
    }

    for (const command of ["ls", "urls"]) {
      const r = await runCliHere([command, "us-counties", "--store", join(dir, "no-such-store")]);
      expect(r.code, `${command}: ${r.stderr}`).toBe(2);
      expect(r.stderr).toMatch(/the store .*no-such-store does not exist: check --store/);
    }
  });
});
