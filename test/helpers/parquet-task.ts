import { crsFromCode, crsFromGeoParquet, reproject } from "../../src/geo/crs/crs.js";
import { decodeWkb } from "../../src/geo/wkb.js";
import type { Feature } from "../../src/geoparquet/features.js";
import { readGeoParquet } from "../../src/geoparquet/read.js";
import { defineTask } from "../../src/task/task.js";

/** A task that takes a GeoParquet input as it is, in the input's own CRS (which it must declare). */
export function parquetTask(path: string) {
  return defineTask({
    name: "bad-input",
    version: "1",
    cadence: "daily",
    regions: ["r1"],
    inputs: () => ({ src: path }),
    crs: "OGC:CRS84",
    idColumn: "id",
    columns: [{ name: "id", type: "int32" }],
    plausibility: { rowTolerance: 0.3 },
    async compute(ctx) {
      const { table, geo } = await readGeoParquet(await ctx.input("src"), path);
      const crs = crsFromGeoParquet(geo.columns[geo.primary_column] ?? {}, path);
      const to = crsFromCode("OGC:CRS84");
      const geoms = table.getChild(geo.primary_column);
      const ids = table.getChild("id");
      return Array.from({ length: table.numRows }, (_, i): Feature => ({
        geometry: reproject(decodeWkb(geoms?.get(i) as Uint8Array, i), crs, to),
        properties: { id: Number(ids?.get(i)) },
      }));
    },
  });
}
