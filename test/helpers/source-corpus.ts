import { execFileSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { runCliHere } from "./cli.js";

/**
 * A corpus of source files written by GDAL itself (Debian's ogr2ogr) from three GeoJSON fixtures in OGC:CRS84:
 * parcels (polygons with holes, multipolygons, a null geometry, Latin-1 text, reals, integers, nulls), 3D points,
 * and a layer of mixed types. Each format gets its own CRS, as real feeds do.
 */
export function writeFixtures(dir: string): void {
  const parcels = [];
  let n = 0;
  for (let i = 0; i < 6; i++)
    for (let j = 0; j < 5; j++) {
      n++;
      const x = -104.9 + i * 0.05;
      const y = 40.3 + j * 0.05;
      const square = (x0: number, y0: number, s: number) => [
        [x0, y0],
        [x0 + s, y0],
        [x0 + s, y0 + s],
        [x0, y0 + s],
        [x0, y0],
      ];
      const hole = [...square(x + 0.01, y + 0.01, 0.02)].reverse();
      const geometry =
        n === 13
          ? null
          : n % 7 === 0
            ? { type: "Polygon", coordinates: [square(x, y, 0.04), hole] }
            : n % 11 === 0
              ? { type: "MultiPolygon", coordinates: [[square(x, y, 0.015)], [square(x + 0.02, y + 0.02, 0.02)]] }
              : { type: "Polygon", coordinates: [square(x, y, 0.04)] };
      parcels.push({
        type: "Feature",
        geometry,
        properties: {
          parcel_id: `P-${String(n).padStart(4, "0")}`,
          zoning: ["Résidentiel", "Commercé", "Agrícola", "Industrial", "Ñandú"][n % 5],
          acres: Math.round(n * 137) / 100,
          units: n * 3,
          owner: n % 4 === 0 ? null : `Owner ${n}`,
        },
      });
    }
  const points3d = Array.from({ length: 8 }, (_, k) => ({
    type: "Feature",
    geometry: { type: "Point", coordinates: [-104.8 + k * 0.01, 40.4 + k * 0.005, 1500 + k * 12.5] },
    properties: { name: `well-${k}`, depth: k * 10 },
  }));
  const mixed = [
    { type: "Point", coordinates: [-104.7, 40.41] },
    {
      type: "LineString",
      coordinates: [
        [-104.7, 40.4],
        [-104.69, 40.42],
        [-104.68, 40.41],
      ],
    },
    {
      type: "Polygon",
      coordinates: [
        [
          [-104.7, 40.4],
          [-104.69, 40.4],
          [-104.69, 40.41],
          [-104.7, 40.4],
        ],
      ],
    },
    {
      type: "MultiLineString",
      coordinates: [
        [
          [-104.6, 40.4],
          [-104.59, 40.41],
        ],
        [
          [-104.58, 40.4],
          [-104.57, 40.41],
        ],
      ],
    },
  ].map((geometry, k) => ({ type: "Feature", geometry, properties: { name: `m-${k}` } }));
  const fc = (features: unknown[]) => JSON.stringify({ type: "FeatureCollection", features });
  writeFileSync(join(dir, "parcels-base.geojson"), fc(parcels));
  writeFileSync(join(dir, "points3d-base.geojson"), fc(points3d));
  writeFileSync(join(dir, "mixed-base.geojson"), fc(mixed));
}

function ogr2ogr(dir: string, args: string[]): void {
  execFileSync("ogr2ogr", args, { cwd: dir, stdio: ["ignore", "ignore", "pipe"] });
}

/** The corpus, under `dir/weld/` (a region's folder, as a feed's url template names it). */
export function writeCorpus(dir: string): void {
  writeFixtures(dir);
  const r = join(dir, "weld");
  mkdirSync(join(r, "zip", "feed"), { recursive: true });
  mkdirSync(join(r, "ldid"), { recursive: true });
  mkdirSync(join(r, "utf8"), { recursive: true });
  const base = (name: string) => join(dir, `${name}-base.geojson`);
  // The parcels as a Shapefile in EPSG:26913, its text in `encoding` (GDAL's ENCODING creation option).
  const shapefile = (encoding: string, path: string) =>
    ogr2ogr(r, ["-f", "ESRI Shapefile", "-t_srs", "EPSG:26913", "-lco", `ENCODING=${encoding}`, path, base("parcels")]);
  // A zipped Shapefile in EPSG:26913 with a .cpg saying ISO-8859-1, in a folder of the archive, beside a readme.
  shapefile("ISO-8859-1", "zip/feed/parcels.shp");
  writeFileSync(join(r, "zip", "feed", "README.txt"), "Weld County parcels\n");
  execFileSync("zip", ["-q", "-r", "../parcels.zip", "feed"], { cwd: join(r, "zip") });
  // A bare Shapefile whose code page is said only by the DBF's language driver byte (87: ISO-8859-1), no .cpg.
  shapefile("LDID/87", "ldid/parcels.shp");
  // A bare Shapefile in UTF-8, said only by its .cpg (GDAL's default: the DBF's language driver byte is 0).
  shapefile("UTF-8", "utf8/parcels.shp");
  // A GeoPackage of three layers in three CRSs: 26913, 4326 (3D), 3857 (mixed types).
  ogr2ogr(r, ["-f", "GPKG", "-t_srs", "EPSG:26913", "-nln", "parcels", "parcels.gpkg", base("parcels")]);
  ogr2ogr(r, ["-f", "GPKG", "-update", "-t_srs", "EPSG:4326", "-nln", "points3d", "parcels.gpkg", base("points3d")]);
  ogr2ogr(r, ["-f", "GPKG", "-update", "-t_srs", "EPSG:3857", "-nln", "mixed", "parcels.gpkg", base("mixed")]);
  ogr2ogr(r, ["-f", "FlatGeobuf", "-t_srs", "EPSG:3857", "parcels.fgb", base("parcels")]);
  // GeoJSON in EPSG:26913 with the old (2008) "crs" member, and RFC 8142 sequences in CRS84.
  ogr2ogr(r, ["-f", "GeoJSON", "-t_srs", "EPSG:26913", "-lco", "RFC7946=NO", "parcels.geojson", base("parcels")]);
  ogr2ogr(r, ["-f", "GeoJSONSeq", "-lco", "RS=YES", "parcels.geojsons", base("parcels")]);
  // CSV with WKT in EPSG:26913 (a CSV says no CRS), and one of lon/lat points.
  ogr2ogr(r, ["-f", "CSV", "-t_srs", "EPSG:26913", "-lco", "GEOMETRY=AS_WKT", "parcels.csv", base("parcels")]);
  ogr2ogr(r, ["-f", "CSV", "-lco", "GEOMETRY=AS_XYZ", "points.csv", base("points3d")]);
}

/**
 * A project of one config-only dataset, `parcels`: the fixtures, each region's feed a copy of parcels-base.geojson
 * under feeds/, and georefresh.config.json (with `extra` keys on the dataset). Returns the config's path.
 */
export function writeFeedProject(dir: string, regions: string[], extra: Record<string, unknown> = {}): string {
  writeFixtures(dir);
  mkdirSync(join(dir, "feeds"), { recursive: true });
  for (const region of regions)
    copyFileSync(join(dir, "parcels-base.geojson"), join(dir, "feeds", `${region}.geojson`));
  const config = join(dir, "georefresh.config.json");
  const source = { url: "./feeds/{region}.geojson", key: "parcel_id" };
  const { top, ...dataset } = extra as { top?: Record<string, unknown> };
  writeFileSync(
    config,
    JSON.stringify({
      store: "./data",
      ...top,
      datasets: { parcels: { source, regions, cadence: "monthly", ...dataset } },
    }),
  );
  return config;
}

/** `dir/<dataset>.config.json`: one config-only dataset of region "weld", monthly, reading `source`. */
export function sourceConfig(
  dir: string,
  dataset: string,
  source: Record<string, unknown>,
  entry: Record<string, unknown> = {},
): string {
  const config = join(dir, `${dataset}.config.json`);
  writeFileSync(
    config,
    JSON.stringify({
      store: "./data",
      datasets: { [dataset]: { source, regions: ["weld"], cadence: "monthly", ...entry } },
    }),
  );
  return config;
}

/**
 * A January 2026 backfill of that dataset, in process: its exit code, all it printed, whether it published. `entry`
 * adds keys to the dataset's entry beside its source (plausibility, …).
 */
export async function backfillSource(
  dir: string,
  dataset: string,
  source: Record<string, unknown>,
  env: Record<string, string> = {},
  entry: Record<string, unknown> = {},
): Promise<{ code: number | null; out: string; published: boolean }> {
  const config = sourceConfig(dir, dataset, source, entry);
  const r = await runCliHere(
    ["backfill", "--config", config, "--dataset", dataset, "--from", "2026-01-01", "--to", "2026-01-31"],
    env,
  );
  return { code: r.code, out: r.stdout + r.stderr, published: existsSync(join(dir, "data", "artifacts", dataset)) };
}
