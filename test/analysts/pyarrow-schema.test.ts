/**
 * pyarrow reads a Parquet file's schema from its embedded Arrow schema (ARROW:schema), not from the footer's
 * key-value pairs GeoPandas reads: "geo" must be in both, as GeoPandas writes it, or pq.read_schema,
 * pq.read_table and pyarrow.dataset see no CRS (and pygeoapi's Parquet provider cannot open the file). Checked in
 * CI's venv on GeoParquet 1.1 and 2.0, lon/lat and projected, one row group and several.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { crsFromCode } from "../../src/geo/crs/crs.js";
import { featuresToTable } from "../../src/geoparquet/features.js";
import type { GeoParquetFormat } from "../../src/geoparquet/metadata.js";
import { writeGeoParquet } from "../../src/geoparquet/write.js";
import { geopandasPython } from "../helpers/geopandas.js";
import { sampleFeatures } from "../helpers/sample.js";

const READ = `
import json, sys
import pyarrow.dataset as ds
import pyarrow.parquet as pq
path = sys.argv[1]
footer = pq.read_metadata(path).metadata[b"geo"]
print(json.dumps({
    "footer": json.loads(footer),
    "read_schema": json.loads(pq.read_schema(path).metadata[b"geo"]),
    "read_table": json.loads(pq.read_table(path).schema.metadata[b"geo"]),
    "dataset": json.loads(ds.dataset(path).schema.metadata[b"geo"]),
}))
`;

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "georefresh-pyarrow-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("pyarrow finds the geo metadata (and so the CRS) in the schema it reads", () => {
  it.each([
    ["geoparquet-1.1", "OGC:CRS84", 65_536],
    ["geoparquet-2.0", "OGC:CRS84", 65_536],
    ["geoparquet-1.1", "EPSG:26913", 1024],
  ] as [GeoParquetFormat, string, number][])("%s in %s, row groups of %i", async (format, code, rowGroupRows) => {
    const crs = crsFromCode(code);
    const features = sampleFeatures(3000); // three row groups of 1024 in the last case
    const { table, stats } = featuresToTable(features);
    const { bytes } = await writeGeoParquet(table, { crs, idColumn: "id", stats, format, rowGroupRows });
    const path = join(dir, `${format}-${code.replace(":", "-")}.parquet`);
    writeFileSync(path, bytes);
    const seen = JSON.parse(execFileSync(geopandasPython(), ["-c", READ, path], { encoding: "utf8" })) as Record<
      string,
      { primary_column: string; columns: Record<string, { crs?: unknown }> }
    >;
    for (const via of ["read_schema", "read_table", "dataset"]) expect(seen[via], via).toEqual(seen.footer);
    expect(seen.footer?.primary_column).toBe("geometry");
    const written = seen.footer?.columns.geometry?.crs as { id?: { code?: number } } | undefined;
    if (code === "OGC:CRS84")
      expect(written).toBeUndefined(); // the default, left out
    else expect(written?.id?.code).toBe(26913);
  });
});
