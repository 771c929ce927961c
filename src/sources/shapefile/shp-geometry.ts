import type { Geometry, GeometryType, Position } from "../../geo/geometry.js";
import { signedArea } from "../../geo/winding.js";

/** The geometry type of a Shapefile's shape type (its header's, for a layer's empty geometries). */
export function layerType(shapeType: number): GeometryType {
  switch (shapeType % 10) {
    case 1:
      return "Point";
    case 3:
      return "MultiLineString";
    case 5:
      return "MultiPolygon";
    case 8:
      return "MultiPoint";
    default:
      return "GeometryCollection";
  }
}

/**
 * One .shp record's content → a geometry (null for a null shape), as GDAL reads it: a polyline of one part is a
 * LineString, of several a MultiLineString; a polygon's rings are shells and holes by nesting rather than winding
 * (see polygons); M values are dropped.
 * Throws a RangeError when the record is shorter than its shape needs.
 */
export function shpGeometry(bytes: Uint8Array): Geometry | null {
  const v = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const type = v.getInt32(0, true);
  if (type === 0) return null;
  const z = type >= 11 && type <= 18;
  switch (type) {
    case 1:
    case 11:
    case 21: {
      const x = v.getFloat64(4, true);
      const y = v.getFloat64(12, true);
      const point = z ? [x, y, v.getFloat64(20, true)] : [x, y];
      if (!point.every(Number.isFinite)) throw notFinite();
      return { type: "Point", coordinates: point };
    }
    case 8:
    case 18:
    case 28: {
      const n = v.getInt32(36, true);
      const points = positions(v, 40, n, z ? 40 + 16 * n + 16 : -1);
      return { type: "MultiPoint", coordinates: points };
    }
    case 3:
    case 13:
    case 23:
    case 5:
    case 15:
    case 25: {
      const parts = v.getInt32(36, true);
      const n = v.getInt32(40, true);
      if (parts < 0 || n < 0 || 44 + 4 * parts + 16 * n > bytes.length)
        throw new RangeError("record shorter than its parts");
      const starts = Array.from({ length: parts }, (_, i) => v.getInt32(44 + 4 * i, true));
      const xy = 44 + 4 * parts;
      const all = positions(v, xy, n, z ? xy + 16 * n + 16 : -1);
      const rings = starts.map((s, i) => all.slice(s, i + 1 < parts ? starts[i + 1] : n));
      if (type % 10 === 3) {
        if (rings.length === 1) return { type: "LineString", coordinates: rings[0] as Position[] };
        return { type: "MultiLineString", coordinates: rings };
      }
      return polygons(rings);
    }
    default:
      throw new RangeError(`shape type ${type} (MultiPatch or unknown) is not supported`);
  }
}

function positions(v: DataView, at: number, n: number, zAt: number): Position[] {
  if (at + 16 * n > v.byteLength || (zAt >= 0 && zAt + 8 * n > v.byteLength))
    throw new RangeError("record shorter than its points");
  const out: Position[] = new Array(n);
  for (let i = 0; i < n; i++) {
    const x = v.getFloat64(at + 16 * i, true);
    const y = v.getFloat64(at + 16 * i + 8, true);
    const z = zAt >= 0 ? v.getFloat64(zAt + 8 * i, true) : 0;
    // x - x is NaN for NaN and for either infinity: one test for all three.
    if (x - x !== 0 || y - y !== 0 || z - z !== 0) throw notFinite();
    out[i] = zAt >= 0 ? [x, y, z] : [x, y];
  }
  return out;
}

const notFinite = () => new RangeError("a coordinate is not a finite number (NaN or infinite)");

function contains(ring: Position[], p: Position): boolean {
  const x = p[0] as number;
  const y = p[1] as number;
  let inside = false;
  for (let i = 0, j = ring.length - 1; i < ring.length; j = i++) {
    const xi = (ring[i] as Position)[0] as number;
    const yi = (ring[i] as Position)[1] as number;
    const xj = (ring[j] as Position)[0] as number;
    const yj = (ring[j] as Position)[1] as number;
    if (yi > y !== yj > y && x < ((xj - xi) * (y - yi)) / (yj - yi) + xi) inside = !inside;
  }
  return inside;
}

interface Ring {
  ring: Position[];
  area: number;
  box: [number, number, number, number];
  parent?: Ring;
  depth: number;
  holes: Position[][];
}

function boxOf(ring: Position[]): [number, number, number, number] {
  let [x0, y0, x1, y1] = [Infinity, Infinity, -Infinity, -Infinity];
  for (const p of ring) {
    const x = p[0] as number;
    const y = p[1] as number;
    if (x < x0) x0 = x;
    if (x > x1) x1 = x;
    if (y < y0) y0 = y;
    if (y > y1) y1 = y;
  }
  return [x0, y0, x1, y1];
}

/**
 * Whether `inner` lies in `outer`: boxes first, then three of inner's vertices by majority (a hole may touch its
 * shell at a vertex, where the point-in-ring test can go either way).
 */
function holds(outer: Ring, inner: Ring): boolean {
  const [a, b] = [outer.box, inner.box];
  if (b[0] < a[0] || b[1] < a[1] || b[2] > a[2] || b[3] > a[3]) return false;
  const n = inner.ring.length - 1;
  const picks = n < 3 ? [0] : [0, Math.floor(n / 3), Math.floor((2 * n) / 3)];
  const inside = picks.filter((i) => contains(outer.ring, inner.ring[i] as Position)).length;
  return inside * 2 > picks.length;
}

/**
 * Rings → polygons by nesting, not by winding: a ring inside an odd number of others is a hole of the one just
 * outside it, any other ring a shell. For a file that follows the spec (clockwise shells) this is what winding
 * says; for the many writers that do not, it is still a valid polygon (GDAL 3.6 builds overlapping shells or a
 * hole outside its shell from such files, which validation would refuse).
 */
function polygons(rings: Position[][]): Geometry {
  if (rings.length === 1) return { type: "Polygon", coordinates: rings };
  const inOrder: Ring[] = rings.map((ring) => ({
    ring,
    area: Math.abs(signedArea(ring)),
    box: boxOf(ring),
    depth: 0,
    holes: [],
  }));
  const all = [...inOrder].sort((p, q) => q.area - p.area);
  for (let i = 0; i < all.length; i++) {
    const r = all[i] as Ring;
    // The smallest larger ring that holds r is the one just outside it.
    for (let j = i - 1; j >= 0; j--)
      if (holds(all[j] as Ring, r)) {
        r.parent = all[j] as Ring;
        r.depth = r.parent.depth + 1;
        break;
      }
  }
  // Shells and each shell's holes in the file's order.
  const shells: Ring[] = [];
  for (const r of inOrder) {
    if (r.depth % 2 === 0) shells.push(r);
    else r.parent?.holes.push(r.ring);
  }
  if (shells.length === 1) {
    const s = shells[0] as Ring;
    return { type: "Polygon", coordinates: [s.ring, ...s.holes] };
  }
  return { type: "MultiPolygon", coordinates: shells.map((s) => [s.ring, ...s.holes]) };
}

/**
 * A point record straight to ISO WKB in `slab` at `at` (no geometry object, no buffer per row: a point layer is often
 * the largest); the WKB's bytes, or null for a null shape.
 */
export function shpPointWkb(bytes: Uint8Array, slab: Uint8Array, at: number): Uint8Array | null {
  const type =
    (bytes[0] as number) | ((bytes[1] as number) << 8) | ((bytes[2] as number) << 16) | ((bytes[3] as number) << 24);
  if (type === 0) return null;
  if (type !== 1 && type !== 11 && type !== 21) throw new RangeError(`shape type ${type} in a point layer`);
  const z = type === 11;
  if (bytes.length < (z ? 28 : 20)) throw new RangeError("record shorter than its point");
  const v = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const x = v.getFloat64(4, true);
  const y = v.getFloat64(12, true);
  const h = z ? v.getFloat64(20, true) : 0;
  if (x - x !== 0 || y - y !== 0 || h - h !== 0) throw notFinite();
  slab[at] = 1;
  slab[at + 1] = z ? 0xe9 : 1; // 1001 = 0x03e9, little-endian
  slab[at + 2] = z ? 0x03 : 0;
  slab[at + 3] = 0;
  slab[at + 4] = 0;
  slab.set(bytes.subarray(4, 20), at + 5);
  if (z) slab.set(bytes.subarray(20, 28), at + 21);
  return slab.subarray(at, at + (z ? 29 : 21));
}
