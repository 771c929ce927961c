import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { sourceSpecOf } from "../../src/config/source-config.js";
import { formatDeclaration, optionsOf, SOURCE_FORMATS } from "../../src/sources/formats.js";
import type { SourceFormatName } from "../../src/sources/formats.js";
import { COMMON_OPTIONS, SOURCE_OPTIONS } from "../../src/sources/source-options.js";
import { readingDigest, sourceTask } from "../../src/sources/source-task.js";
import type { SourceSpec } from "../../src/sources/source-spec.js";

/** A value of each option that parses, and a second one that reads differently (undefined: the option left out). */
const VALUES: Record<string, [unknown, unknown]> = {
  layer: ["parcels", "roads"],
  crs: ["EPSG:2232", "EPSG:26913"],
  columns: [{ ID: { name: "id" } }, { ID: { name: "id", type: "int64" } }],
  encoding: ["latin1", "windows-1252"],
  geometry: ["wkt", { x: "lon", y: "lat" }],
  datumShift: ["ballpark", undefined],
};
const EXTENSION: Record<SourceFormatName, string> = {
  geojson: "geojson",
  geojsonseq: "geojsonl",
  flatgeobuf: "fgb",
  shapefile: "zip",
  gpkg: "gpkg",
  csv: "csv",
  geoparquet: "parquet",
};

function load(source: Record<string, unknown>): SourceSpec {
  return sourceSpecOf("parcels", { source, regions: ["weld"] }, "/feeds", (message) => {
    throw new Error(message);
  });
}

describe("a source format's options, declared once", () => {
  it("every option a format takes parses from the config, reaches the spec and changes the task's version", () => {
    for (const format of SOURCE_FORMATS) {
      const url = `./{region}/parcels.${EXTENSION[format]}`;
      expect(load({ url }).format).toBe(format);
      for (const option of optionsOf(format)) {
        const [a, b] = VALUES[option.key] ?? [];
        expect(a, `a test value for "${option.key}"`).toBeDefined();
        const one = load({ url, [option.key]: a });
        const two = load(b === undefined ? { url } : { url, [option.key]: b });
        expect(one[option.key], `${format}.${option.key}`).toEqual(a);
        if (option.changesReading)
          expect(sourceTask(one).version, `${format}.${option.key} is part of the key`).not.toBe(
            sourceTask(two).version,
          );
      }
    }
  });

  it("an option another format takes is refused, naming the formats that take it and what this one takes", () => {
    expect(() => load({ url: "./{region}/parcels.geojson", layer: "parcels" })).toThrow(
      /dataset 'parcels': "source.layer" \(which layer of a file of several\) is an option of shapefile and gpkg files; this source is geojson, which takes url, format, key, complete, undated, crs, columns, datumShift, encoding$/,
    );
    expect(() => load({ url: "./{region}/parcels.zip", geometry: "wkt" })).toThrow(
      /"source.geometry" \(the geometry columns of a table of text\) is an option of csv files; this source is shapefile, which takes .*layer, encoding$/,
    );
    expect(() => load({ url: "./{region}/parcels.fgb", encoding: "latin1" })).toThrow(
      /"source.encoding" .* is an option of geojson, geojsonseq, shapefile and csv files; this source is flatgeobuf/,
    );
    expect(() => load({ url: "./{region}/parcels.csv", constructor: "x" })).toThrow(
      /"source" has an unknown key "constructor" \(a csv source takes url, format, key, complete, undated, crs, columns, datumShift, encoding, geometry\)/,
    );
    expect(() => load({ url: "./{region}/parcels.csv", encoding: "klingon" })).toThrow(
      /"source.encoding" "klingon" is not an encoding this build can read/,
    );
    expect(() => load({ url: "./{region}/parcels.gpkg", columns: { A: { name: "a", type: "date" } } })).toThrow(
      /"source.columns.A.type" must be one of string, float64, int32, int64, bool \(got "date"\)/,
    );
  });

  it("keeps the fingerprints' form: the same options give the same keys as the form written out by hand", () => {
    // The fingerprint as it was written out by hand before the options were declared (commit 6062b72).
    const before = (spec: SourceSpec) =>
      createHash("sha256")
        .update(
          JSON.stringify({
            format: spec.format,
            layer: spec.layer ?? null,
            crs: spec.crs ?? null,
            columns: spec.columns ?? null,
            encoding: spec.encoding ?? null,
            geometry: spec.geometry ?? null,
            datumShift: spec.datumShift ?? null,
          }),
        )
        .digest("hex")
        .slice(0, 16);
    const specs = [
      load({ url: "./{region}/parcels.geojson" }),
      load({ url: "./{region}/parcels.zip", layer: "parcels", encoding: "latin1", crs: "EPSG:2232" }),
      load({ url: "./{region}/points.csv", geometry: { x: "lon", y: "lat" }, columns: { ID: "id" } }),
      load({ url: "./{region}/parcels.gpkg", layer: "parcels" }),
    ];
    for (const spec of specs) expect(readingDigest(spec)).toBe(before(spec));
    expect(SOURCE_OPTIONS.map((o) => o.key)).toEqual(["layer", "crs", "columns", "encoding", "geometry", "datumShift"]);
  });

  it("a bare Shapefile's sidecars are inputs its format declares, a zipped one has none", () => {
    const bare = sourceTask(load({ url: "./{region}/parcels.shp" }));
    const inputs = bare.inputs({ dataset: "parcels", region: "weld", date: "2026-01-01" });
    expect(inputs).toEqual({
      source: "/feeds/weld/parcels.shp",
      ".dbf": "/feeds/weld/parcels.dbf",
      ".prj": "/feeds/weld/parcels.prj",
      ".cpg": "/feeds/weld/parcels.cpg",
    });
    expect(formatDeclaration("shapefile").companions?.("x.zip")).toEqual([]);
    const zipped = sourceTask(load({ url: "./{region}/parcels.zip" }));
    expect(Object.keys(zipped.inputs({ dataset: "parcels", region: "weld", date: "2026-01-01" }))).toEqual(["source"]);
  });

  it("docs/sources.md names, for each option of some formats only, exactly the formats that take it", () => {
    const doc = readFileSync(new URL("../../docs/sources.md", import.meta.url), "utf8");
    for (const option of SOURCE_OPTIONS) {
      const row = doc.split("\n").find((line) => line.startsWith(`| \`${option.key}\` |`));
      expect(row, `docs/sources.md has a row for "${option.key}"`).toBeDefined();
      if (COMMON_OPTIONS.includes(option)) continue;
      const said = [...(row?.split("|")[2] ?? "").matchAll(/`([a-z]+)`/g)].map((m) => m[1]).sort();
      const taking = SOURCE_FORMATS.filter((f) => optionsOf(f).includes(option)).sort();
      expect(said, option.key).toEqual(taking);
    }
  });
});
