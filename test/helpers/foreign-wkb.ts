import { WKB_CODE } from "../../src/geo/geometry.js";
import type { Geometry, Position } from "../../src/geo/geometry.js";

/** Another tool's WKB: big-endian, EWKB Z flag and SRID on the outer geometry (as PostGIS writes it). */
export function ewkbBigEndian(g: Geometry, srid: number | undefined): Uint8Array {
  const bytes: number[] = [];
  const u32 = (v: number) => bytes.push((v >>> 24) & 255, (v >>> 16) & 255, (v >>> 8) & 255, v & 255);
  const f64 = (v: number) => {
    const b = Buffer.alloc(8);
    b.writeDoubleBE(v);
    bytes.push(...b);
  };
  const z = JSON.stringify(g).match(/\[-?[\d.e+-]+,-?[\d.e+-]+,-?[\d.e+-]+\]/) !== null;
  const pt = (p: Position) => [0, 1, ...(z ? [2] : [])].forEach((k) => f64(p.length ? (p[k] as number) : NaN));
  const run = (ps: Position[]) => (u32(ps.length), ps.forEach(pt));
  const write = (h: Geometry, outer: boolean): void => {
    bytes.push(0);
    u32(WKB_CODE[h.type] | (z ? 0x80000000 : 0) | (outer && srid !== undefined ? 0x20000000 : 0));
    if (outer && srid !== undefined) u32(srid);
    if (h.type === "Point") pt(h.coordinates);
    else if (h.type === "LineString") run(h.coordinates);
    else if (h.type === "Polygon") (u32(h.coordinates.length), h.coordinates.forEach(run));
    else if (h.type === "MultiPoint")
      (u32(h.coordinates.length), h.coordinates.forEach((c) => write({ type: "Point", coordinates: c }, false)));
    else if (h.type === "MultiLineString")
      (u32(h.coordinates.length), h.coordinates.forEach((c) => write({ type: "LineString", coordinates: c }, false)));
    else if (h.type === "MultiPolygon")
      (u32(h.coordinates.length), h.coordinates.forEach((c) => write({ type: "Polygon", coordinates: c }, false)));
    else (u32(h.geometries.length), h.geometries.forEach((c) => write(c, false)));
  };
  write(g, true);
  return Uint8Array.from(bytes);
}
