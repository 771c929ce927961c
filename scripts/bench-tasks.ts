/** Tasks for bench:pipeline, in their own module so worker threads can load them by reference. */
import { Binary, Int32, makeData, makeVector, Table } from "apache-arrow";
import type { Feature } from "../src/geoparquet/features.js";
import { defineTask } from "../src/task/task.js";

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
    // Region k is the band of points at 30 + k °N (40 points each), so regions have distinct extents to prune by.
    const k = Number(ctx.partition.region.slice(1));
    return rows
      .filter((r) => Math.floor((r[0] as number) / 40) === k)
      .map(([id, x, y]): Feature => ({
        geometry: {
          type: "Polygon",
          coordinates: [
            [
              [x as number, y as number],
              [(x as number) + 0.1, y as number],
              [(x as number) + 0.1, (y as number) + 0.1],
              [x as number, y as number],
            ],
          ],
        },
        properties: { id: id as number },
      }));
  },
});

/** What the two heavy tasks share: regions, input, CRS, and where polygon i of region k is centred. */
const HEAVY = {
  version: "1",
  cadence: "daily" as const,
  regions: ["h0", "h1", "h2", "h3"],
  inputs: () => ({ points: input() }),
  crs: "OGC:CRS84",
  idColumn: "id",
};
const centre = (i: number, k: number) => [-170 + ((i * 37 + k) % 340), -60 + ((i * 13) % 120)] as const;

/** Heavy partitions: 3,000 polygons of 200 vertices each, so GEOS validation dominates. */
export const heavy = defineTask({
  ...HEAVY,
  name: "bench-heavy",
  async compute(ctx) {
    await ctx.input("points");
    const k = Number(ctx.partition.region.slice(1));
    return Array.from({ length: 3000 }, (_, i): Feature => {
      const [cx, cy] = centre(i, k);
      const ring = Array.from({ length: 199 }, (_, j) => [
        cx + 0.3 * Math.cos((2 * Math.PI * j) / 199),
        cy + 0.3 * Math.sin((2 * Math.PI * j) / 199),
      ]);
      ring.push(ring[0] as number[]);
      return { geometry: { type: "Polygon", coordinates: [ring] }, properties: { id: i } };
    });
  },
});

/** The same rows as `heavy`, written straight into a WKB column of an Arrow table: no object per vertex. */
export const heavyArrow = defineTask({
  ...HEAVY,
  name: "bench-heavy-arrow",
  async compute(ctx) {
    await ctx.input("points");
    const k = Number(ctx.partition.region.slice(1));
    const n = 3000;
    const vertices = 200;
    const size = 1 + 4 + 4 + 4 + 16 * vertices;
    const data = new Uint8Array(n * size);
    const view = new DataView(data.buffer);
    const offsets = new Int32Array(n + 1);
    for (let i = 0; i < n; i++) {
      const [cx, cy] = centre(i, k);
      let pos = i * size;
      view.setUint8(pos, 1);
      view.setUint32(pos + 1, 3, true);
      view.setUint32(pos + 5, 1, true);
      view.setUint32(pos + 9, vertices, true);
      pos += 13;
      for (let j = 0; j < vertices; j++, pos += 16) {
        const a = (2 * Math.PI * (j % (vertices - 1))) / (vertices - 1);
        view.setFloat64(pos, cx + 0.3 * Math.cos(a), true);
        view.setFloat64(pos + 8, cy + 0.3 * Math.sin(a), true);
      }
      offsets[i + 1] = (i + 1) * size;
    }
    return new Table({
      id: makeVector(makeData({ type: new Int32(), length: n, data: Int32Array.from({ length: n }, (_, i) => i) })),
      geometry: makeVector(makeData({ type: new Binary(), length: n, valueOffsets: offsets, data })),
    });
  },
});

/** Rows of the bench:large tasks, from the environment (set before workers start: they copy it). */
const largeRows = () => Number(process.env.GEOREFRESH_BENCH_ROWS ?? 1_000_000);
const BATCH = 131_072;

function lcg(seed: number) {
  let s = seed >>> 0;
  return () => (s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 0x100000000;
}

/** Yields `rows` rows as Arrow batches: an int32 id in input order and a WKB geometry written by `put`. */
async function* largeBatches(size: (i: number) => number, put: (view: DataView, at: number, r: () => number) => void) {
  const r = lcg(7);
  const total = largeRows();
  for (let first = 0; first < total; first += BATCH) {
    const n = Math.min(BATCH, total - first);
    const offsets = new Int32Array(n + 1);
    for (let i = 0; i < n; i++) offsets[i + 1] = (offsets[i] as number) + size(first + i);
    const data = new Uint8Array(offsets[n] as number);
    const view = new DataView(data.buffer);
    for (let i = 0; i < n; i++) put(view, offsets[i] as number, r);
    yield new Table({
      id: makeVector(
        makeData({ type: new Int32(), length: n, data: Int32Array.from({ length: n }, (_, i) => first + i) }),
      ),
      geometry: makeVector(makeData({ type: new Binary(), length: n, valueOffsets: offsets, data })),
    });
  }
}

const LARGE = {
  version: "1",
  cadence: "daily" as const,
  regions: ["la"],
  inputs: () => ({}),
  crs: "OGC:CRS84",
  idColumn: "id",
  plausibility: { minRows: 1 },
};

/** bench:large — uniformly random points over the contiguous US, yielded in batches of 131,072. */
export const largePoints = defineTask({
  ...LARGE,
  name: "bench-large-points",
  compute: () =>
    largeBatches(
      () => 21,
      (view, at, r) => {
        view.setUint8(at, 1);
        view.setUint32(at + 1, 1, true);
        view.setFloat64(at + 5, -125 + r() * 58, true);
        view.setFloat64(at + 13, 24 + r() * 25, true);
      },
    ),
});

const RING = 9; // a closed ring of 8 distinct vertices: parcel-like footprints
/** bench:large — small random octagons (parcel-sized, ~30 m) over the contiguous US. */
export const largePolygons = defineTask({
  ...LARGE,
  name: "bench-large-polygons",
  compute: () =>
    largeBatches(
      () => 13 + 16 * RING,
      (view, at, r) => {
        view.setUint8(at, 1);
        view.setUint32(at + 1, 3, true);
        view.setUint32(at + 5, 1, true);
        view.setUint32(at + 9, RING, true);
        const cx = -125 + r() * 58;
        const cy = 24 + r() * 25;
        const radius = 0.0002 + r() * 0.0003;
        for (let j = 0; j < RING; j++) {
          const a = (2 * Math.PI * (j % (RING - 1))) / (RING - 1);
          view.setFloat64(at + 13 + 16 * j, cx + radius * Math.cos(a), true);
          view.setFloat64(at + 21 + 16 * j, cy + radius * Math.sin(a), true);
        }
      },
    ),
});
