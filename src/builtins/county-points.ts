import { decodeWkb } from "../geo/wkb.js";
import type { Feature } from "../geoparquet/features.js";
import { defineTask } from "../task/task.js";
import { usCounties } from "./us-counties.js";

/**
 * A label point per US county, built on the `us-counties` dataset: its input is `dataset:us-counties`, that
 * dataset's partition for the same state and month, read through its manifest. A point on the surface (not the
 * centroid, which can fall outside a concave county). Run the us-counties backfill first; a partition whose
 * upstream is missing ends `blocked`, and a re-run after the upstream changes makes new keys.
 */
export const countyPoints = defineTask({
  name: "county-points",
  version: "1",
  cadence: "monthly",
  regions: usCounties.regions,
  regionsComplete: true,
  inputs: () => ({ counties: "dataset:us-counties" }),
  crs: "OGC:CRS84",
  idColumn: "geoid",
  columns: [
    { name: "geoid", type: "string" },
    { name: "name", type: "string" },
    { name: "state", type: "string" },
  ],
  plausibility: { minRows: 1 },
  async compute(ctx) {
    const { table } = await (
      await import("../geoparquet/read.js")
    ).readGeoParquet(await ctx.input("counties"), `us-counties ${ctx.partition.region} ${ctx.partition.date}`, {
      columns: ["geoid", "name", "state", "geometry"],
    });
    const geoid = table.getChild("geoid");
    const name = table.getChild("name");
    const geometry = table.getChild("geometry");
    const { pointOnFeature } = await import("@turf/turf");
    const out: Feature[] = [];
    for (let i = 0; i < table.numRows; i++) {
      const polygon = decodeWkb(geometry?.get(i) as Uint8Array, i);
      let point;
      try {
        point = pointOnFeature({ type: "Feature", properties: {}, geometry: polygon as never });
      } catch (error) {
        throw new Error(
          `county ${String(geoid?.get(i))} (${String(name?.get(i))}, row ${i} of us-counties ${ctx.partition.region} ${ctx.partition.date}): no point on its surface: ${(error as Error).message}`,
        );
      }
      out.push({
        geometry: point.geometry as never,
        properties: { geoid: String(geoid?.get(i)), name: String(name?.get(i)), state: ctx.partition.region },
      });
    }
    return out;
  },
});
