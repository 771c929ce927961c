import { createRequire } from "node:module";
import { feature } from "topojson-client";
import type { Topology } from "topojson-specification";
import { equalAreaArea } from "../geo/area.js";
import { crsFromCode } from "../geo/crs/crs.js";
import type { Geometry } from "../geo/geometry.js";
import { makeValidPolygonal, RepairError } from "../geo/repair.js";
import { validateWkb } from "../geo/validity.js";
import { encodeWkbColumn } from "../geo/wkb.js";
import type { Feature } from "../geoparquet/features.js";
import { defineTask } from "../task/task.js";
import { FIPS_BY_STATE, STATE_BY_FIPS } from "./states.js";

const require = createRequire(import.meta.url);
const CRS84 = crsFromCode("OGC:CRS84");

/**
 * US counties (US Census boundaries via the us-atlas package), one partition per state. The 1:10m boundaries are
 * simplified and a few dozen come out self-intersecting; this task repairs those with GEOS MakeValid and marks
 * them `repaired` — a visible, recorded decision — and the pipeline then validates every row as usual. A county
 * whose boundary the simplification collapsed to a line (Falls Church, VA, 51610) has no area left to repair: it
 * is dropped with ctx.drop, which the manifest, `show`, the outcome line and the report say, never kept as an
 * empty polygon.
 */
export const usCounties = defineTask({
  name: "us-counties",
  version: "2",
  cadence: "monthly",
  regions: Object.values(STATE_BY_FIPS).sort(),
  regionsComplete: true,
  inputs: () => ({ counties: require.resolve("us-atlas/counties-10m.json") }),
  pins: ["boundary_vintage"],
  crs: "OGC:CRS84",
  idColumn: "geoid",
  columns: [
    { name: "geoid", type: "string" },
    { name: "name", type: "string" },
    { name: "state", type: "string" },
    { name: "area_km2", type: "float64" },
    { name: "repaired", type: "bool" },
    { name: "boundary_vintage", type: "string" },
  ],
  plausibility: { minRows: 1 },
  async compute(ctx) {
    const fips = FIPS_BY_STATE[ctx.partition.region];
    if (!fips) throw new Error(`unknown state '${ctx.partition.region}'`);
    const topo = JSON.parse(new TextDecoder().decode(await ctx.input("counties"))) as Topology;
    const collection = feature(topo, topo.objects.counties as never) as unknown as {
      features: { id: string; properties: { name: string }; geometry: Geometry | null }[];
    };
    const rows = collection.features.filter((f) => String(f.id).startsWith(fips) && f.geometry);
    const geometries = rows.map((f) => f.geometry as Geometry);
    const column = encodeWkbColumn(geometries);
    const invalid = new Set((await validateWkb(column.data, column.offsets, CRS84, { threads: 0 })).map((i) => i.row));
    const out: Feature[] = [];
    for (const [i, f] of rows.entries()) {
      let geometry = geometries[i] as Geometry;
      if (invalid.has(i))
        try {
          geometry = await makeValidPolygonal(geometry);
        } catch (error) {
          if (!(error instanceof RepairError)) throw error;
          ctx.drop(`${String(f.id)} ${f.properties.name}: ${error.message} in us-atlas's 1:10m boundaries`);
          continue;
        }
      out.push({
        geometry,
        properties: {
          geoid: String(f.id),
          name: f.properties.name,
          state: ctx.partition.region,
          area_km2: Math.round(equalAreaArea(geometry, CRS84) / 1e4) / 100,
          repaired: invalid.has(i),
          boundary_vintage: ctx.pins.boundary_vintage ?? null,
        },
      });
    }
    return out;
  },
});
