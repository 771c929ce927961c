/** Tasks for bench:pipeline, in their own module so worker threads can load them by reference. */
import type { Feature } from "../src/geoparquet/features.js";
import { defineTask } from "../src/pipeline/task.js";

const REGIONS = Array.from({ length: 10 }, (_, i) => `r${i}`);
const input = () => process.env.GEOREFRESH_BENCH_INPUT as string;

export const small = defineTask({
  name: "bench-small",
  version: "1",
  cadence: "daily",
  regions: REGIONS,
  inputs: () => ({ points: input() }),
  crs: "OGC:CRS84",
  idColumn: "id",
  async compute(ctx) {
    const rows = JSON.parse(new TextDecoder().decode(await ctx.input("points"))) as number[][];
    const k = Number(ctx.partition.region.slice(1));
    return rows
      .filter((r) => (r[0] as number) % 10 === k)
      .map(([id, x, y]): Feature => ({ geometry: { type: "Polygon", coordinates: [[[x as number, y as number], [(x as number) + 0.1, y as number], [(x as number) + 0.1, (y as number) + 0.1], [x as number, y as number]]] }, properties: { id: id as number } }));
  },
});

/** Heavy partitions: 3,000 polygons of 200 vertices each, so GEOS validation dominates. */
export const heavy = defineTask({
  name: "bench-heavy",
  version: "1",
  cadence: "daily",
  regions: ["h0", "h1", "h2", "h3"],
  inputs: () => ({ points: input() }),
  crs: "OGC:CRS84",
  idColumn: "id",
  async compute(ctx) {
    await ctx.input("points");
    const k = Number(ctx.partition.region.slice(1));
    return Array.from({ length: 3000 }, (_, i): Feature => {
      const cx = -170 + ((i * 37 + k) % 340);
      const cy = -60 + ((i * 13) % 120);
      const ring = Array.from({ length: 199 }, (_, j) => [cx + 0.3 * Math.cos((2 * Math.PI * j) / 199), cy + 0.3 * Math.sin((2 * Math.PI * j) / 199)]);
      ring.push(ring[0] as number[]);
      return { geometry: { type: "Polygon", coordinates: [ring] }, properties: { id: i } };
    });
  },
});

