/**
 * Text files in a code page where UTF-8 is expected (a Windows export of GeoJSON or CSV): refused without
 * "encoding" (test/sources/wild.test.ts), and read letter for letter with it, as Python's own codec decodes them.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readRows } from "../helpers/geojson-rows.js";
import { geopandasPython } from "../helpers/geopandas.js";
import { backfillSource } from "../helpers/source-corpus.js";

let dir: string;
const NAMES = ["Saïd, Zoë", "Œuvre — “quoted” €"];

describe('"encoding" on a text file written in a code page', () => {
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "georefresh-text-encoding-"));
    mkdirSync(join(dir, "weld"));
    const features = NAMES.map((name, k) => ({
      type: "Feature",
      properties: { k, name },
      geometry: { type: "Point", coordinates: [-104.8 + k / 10, 40.4] },
    }));
    const csv = `k,name,lon,lat\n${NAMES.map((n, k) => `${k},"${n}",${-104.8 + k / 10},40.4`).join("\n")}\n`;
    // Python's cp1252 codec writes the bytes, as a Windows tool would; the strings above are what they mean.
    const write = (file: string, text: string) =>
      execFileSync(
        "/usr/bin/python3",
        ["-c", "import sys; open(sys.argv[1], 'wb').write(sys.stdin.read().encode('cp1252'))", join(dir, "weld", file)],
        { input: text },
      );
    write("names.geojson", JSON.stringify({ type: "FeatureCollection", features }));
    write("names.geojsonl", features.map((f) => JSON.stringify(f)).join("\n") + "\n");
    write("names.csv", csv);
    writeFileSync(join(dir, "weld", "one.geojson"), Buffer.from(JSON.stringify(features[0]), "latin1"));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it.each([
    ["geojson", { url: "./{region}/names.geojson" }],
    ["geojsonseq", { url: "./{region}/names.geojsonl" }],
    ["csv", { url: "./{region}/names.csv", crs: "EPSG:4326", geometry: { x: "lon", y: "lat" } }],
  ] as const)("%s: refused as UTF-8, read letter for letter as windows-1252", async (format, source) => {
    const refused = await backfillSource(dir, `${format}-utf8`, source);
    expect(refused.code, refused.out).toBe(5);
    expect(refused.out).toMatch(/is not UTF-8 \(.*\\x(ef|8c)/);
    expect(refused.out).not.toContain("\uFFFD");
    const read = await backfillSource(dir, `${format}-1252`, { ...source, encoding: "windows-1252" });
    expect(read.code, read.out).toBe(0);
    const rows = await readRows(`${format}-1252`, join(dir, `${format}-1252.config.json`), "weld");
    expect(rows.map((r) => r.properties.name).sort()).toEqual([...NAMES].sort());
  });

  it("a top-level Feature in Latin-1 is refused, and read with its encoding", async () => {
    const refused = await backfillSource(dir, "one-utf8", { url: "./{region}/one.geojson" });
    expect(refused.code, refused.out).toBe(5);
    expect(refused.out).toMatch(/one\.geojson: byte \d+ \(line 1\) is not UTF-8 \(.*Sa\\xefd, Zo\\xeb/);
    const read = await backfillSource(dir, "one-latin1", { url: "./{region}/one.geojson", encoding: "latin1" });
    expect(read.code, read.out).toBe(0);
    const rows = await readRows("one-latin1", join(dir, "one-latin1.config.json"), "weld");
    expect(rows.map((r) => r.properties.name)).toEqual([NAMES[0]]);
  });
});

describe("a GeoParquet whose string column holds bytes that are not UTF-8", () => {
  it("is refused saying so (not as a corrupt file), and read with the column left out", async () => {
    const where = mkdtempSync(join(tmpdir(), "georefresh-gpq-text-"));
    try {
      mkdirSync(join(where, "weld"));
      const file = join(where, "weld", "names.parquet");
      // GeoPandas writes it, in plain uncompressed pages, so the text's bytes are in the file as they are.
      execFileSync(geopandasPython(), [
        "-c",
        `import sys, geopandas as gpd, shapely
gpd.GeoDataFrame({"k": [0, 1], "name": ["Zoe", "Sa#d"]}, geometry=[shapely.Point(-104.8, 40.4), shapely.Point(-104.7, 40.4)], crs="EPSG:4326").to_parquet(sys.argv[1], compression=None, use_dictionary=False, write_statistics=False)`,
        file,
      ]);
      const clean = await backfillSource(where, "gpq-utf8", { url: "./{region}/names.parquet" });
      expect(clean.code, clean.out).toBe(0);
      // "Sa#d" becomes "Sa\xefd" in place, as a writer that stored Latin-1 in a UTF-8 column leaves it.
      const bytes = readFileSync(file);
      const at = bytes.indexOf("Sa#d");
      expect(at).toBeGreaterThan(0);
      bytes[at + 2] = 0xef;
      writeFileSync(join(where, "weld", "latin1.parquet"), bytes);
      const refused = await backfillSource(where, "gpq-latin1", { url: "./{region}/latin1.parquet" });
      expect(refused.code, refused.out).toBe(5);
      expect(refused.out).toMatch(
        /latin1\.parquet \(row group 0\): a text column holds bytes that are not UTF-8 \(encountered non UTF-8 data.*leave the column out with "columns"/,
      );
      expect(refused.out).not.toContain("\uFFFD");
      expect(refused.published).toBe(false);
      // Leaving the column out reads the rest.
      const kept = await backfillSource(where, "gpq-without-name", {
        url: "./{region}/latin1.parquet",
        columns: { k: "k" },
      });
      expect(kept.code, kept.out).toBe(0);
    } finally {
      rmSync(where, { recursive: true, force: true });
    }
  });
});
