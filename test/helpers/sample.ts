import type { Geometry } from "../../src/geo/geometry.js";
import type { Feature } from "../../src/geoparquet/features.js";

/** Deterministic pseudo-random numbers (xorshift), so samples are equal in every process. */
export function rng(seed: number): () => number {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    return s / 0x100000000;
  };
}

/** Squares and points scattered over the contiguous US, with id, name and a value column. */
export function sampleFeatures(n: number, seed = 1): Feature[] {
  const r = rng(seed);
  return Array.from({ length: n }, (_, id) => {
    const x = -124 + r() * 57;
    const y = 25 + r() * 24;
    const s = 0.01 + r() * 0.1;
    const geometry: Geometry =
      id % 3 === 0
        ? { type: "Point", coordinates: [x, y] }
        : {
            type: "Polygon",
            coordinates: [
              [
                [x, y],
                [x + s, y],
                [x + s, y + s],
                [x, y + s],
                [x, y],
              ],
            ],
          };
    return { geometry, properties: { id, name: `site ${id % 17}`, value: Math.round(r() * 1e6) / 100 } };
  });
}
