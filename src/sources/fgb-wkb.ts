import type { Geometry } from "flatgeobuf/lib/mjs/flat-geobuf/geometry.js";

/** FlatGeobuf geometry types by value (the package's GeometryType enum). */
const POINT = 1;
const LINESTRING = 2;
const POLYGON = 3;
const MULTIPOINT = 4;
const MULTILINESTRING = 5;
const MULTIPOLYGON = 6;

/**
 * A FlatGeobuf geometry straight to ISO WKB, little-endian (no GeoJSON object per feature, no second encoding):
 * the bytes encodeWkb gives for what the package's fromGeometry returns — x, y and z (M is dropped, as
 * everywhere). Undefined where that path is kept: empty and collection geometries. A coordinate that is NaN or
 * infinite is a RangeError, as the other readers refuse one.
 */
export function fgbWkb(g: Geometry, headerType: number): Uint8Array | undefined {
  const type = headerType === 0 ? g.type() : headerType;
  if (type === MULTIPOLYGON) {
    const n = g.partsLength();
    if (n === 0) return undefined;
    const parts: Uint8Array[] = [];
    for (let i = 0; i < n; i++) {
      const part = g.parts(i);
      const wkb = part ? fgbWkb(part, POLYGON) : undefined;
      if (!wkb) return undefined;
      parts.push(wkb);
    }
    const z = (g.parts(0)?.zArray()?.length ?? 0) > 0;
    const out = new Uint8Array(9 + parts.reduce((s, p) => s + p.length, 0));
    const v = new DataView(out.buffer);
    out[0] = 1;
    v.setUint32(1, z ? 1006 : 6, true);
    v.setUint32(5, n, true);
    let at = 9;
    for (const p of parts) {
      out.set(p, at);
      at += p.length;
    }
    return out;
  }
  const xy = g.xyArray();
  if (!xy || xy.length < 2) return undefined;
  const zs = g.zArray();
  const z = zs !== null && zs.length > 0;
  const points = xy.length >> 1;
  const dims = z ? 3 : 2;
  const ends = type === POLYGON || type === MULTILINESTRING ? g.endsArray() : null;
  const runs = ends && ends.length ? Array.from(ends) : [points];
  let size: number;
  switch (type) {
    case POINT:
      size = 5 + 8 * dims;
      break;
    case LINESTRING:
      size = 9 + 8 * dims * points;
      break;
    case MULTIPOINT:
      size = 9 + points * (5 + 8 * dims);
      break;
    case POLYGON:
      size = 9 + 4 * runs.length + 8 * dims * points;
      break;
    case MULTILINESTRING:
      size = 9 + 9 * runs.length + 8 * dims * points;
      break;
    default:
      return undefined;
  }
  const out = new Uint8Array(size);
  const v = new DataView(out.buffer);
  let at = 0;
  const head = (t: number) => {
    out[at] = 1;
    v.setUint32(at + 1, z ? 1000 + t : t, true);
    at += 5;
  };
  const count = (n: number) => {
    v.setUint32(at, n, true);
    at += 4;
  };
  const point = (i: number) => {
    const x = xy[2 * i] as number;
    const y = xy[2 * i + 1] as number;
    // x - x is NaN for NaN and for either infinity: one test for all three.
    if (x - x !== 0 || y - y !== 0) throw notFinite();
    v.setFloat64(at, x, true);
    v.setFloat64(at + 8, y, true);
    at += 16;
    if (z) {
      const h = (zs as Float64Array)[i] as number;
      if (h - h !== 0) throw notFinite();
      v.setFloat64(at, h, true);
      at += 8;
    }
  };
  switch (type) {
    case POINT:
      head(POINT);
      point(0);
      break;
    case LINESTRING:
      head(LINESTRING);
      count(points);
      for (let i = 0; i < points; i++) point(i);
      break;
    case MULTIPOINT:
      head(MULTIPOINT);
      count(points);
      for (let i = 0; i < points; i++) {
        head(POINT);
        point(i);
      }
      break;
    case POLYGON:
    case MULTILINESTRING: {
      head(type);
      count(runs.length);
      let start = 0;
      for (const end of runs) {
        if (type === MULTILINESTRING) head(LINESTRING);
        count(end - start);
        for (let i = start; i < end; i++) point(i);
        start = end;
      }
      break;
    }
  }
  return at === size ? out : undefined;
}

const notFinite = () => new RangeError("a coordinate is not a finite number (NaN or infinite)");
