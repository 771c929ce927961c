import { GEOMETRY_FIELD } from "./fgb-raw.js";
import type { FgbFeature } from "./fgb-raw.js";

/** FlatGeobuf geometry types by value (the package's GeometryType enum). */
const POINT = 1;
const LINESTRING = 2;
const POLYGON = 3;
const MULTIPOINT = 4;
const MULTILINESTRING = 5;
const MULTIPOLYGON = 6;
const TRIANGLE = 17;

/** A geometry's coordinate vectors, read once: where xy and z start, how many points, and the ring/part ends. */
interface Coordinates {
  xy: number;
  z: number;
  points: number;
  ends: number;
  runs: number;
}

function coordinates(f: FgbFeature, g: number): Coordinates | undefined {
  const [xy, n] = f.vector(g, GEOMETRY_FIELD.xy, 8);
  if (xy < 0 || n < 2) return undefined;
  const [z, nz] = f.vector(g, GEOMETRY_FIELD.z, 8);
  const [ends, runs] = f.vector(g, GEOMETRY_FIELD.ends, 4);
  if (nz > 0 && nz !== n >> 1) throw new RangeError("a geometry's z values do not match its points");
  return { xy, z: nz > 0 ? z : -1, points: n >> 1, ends, runs };
}

/**
 * A FlatGeobuf geometry (the table at `g` of the feature) straight to ISO WKB, little-endian, read in place (no
 * GeoJSON object, no flatbuffers object, no second encoding): the bytes encodeWkb gives for what the package's
 * fromGeometry returns — x, y and z (M is dropped, as everywhere). Undefined where that path is kept: empty and
 * collection geometries. A coordinate that is NaN or infinite, or ring ends past the points, is a RangeError.
 */
export function fgbWkb(f: FgbFeature, g: number, headerType: number): Uint8Array | undefined {
  let type = headerType === 0 ? f.geometryType(g) : headerType;
  // A Triangle is a Polygon of one closed ring of four points, as OGR's ForceToPolygon makes it.
  if (type === TRIANGLE) type = POLYGON;
  if (type === MULTIPOLYGON) {
    const [parts, n] = f.vector(g, GEOMETRY_FIELD.parts, 4);
    if (n === 0) return undefined;
    const polygons: Uint8Array[] = [];
    let size = 9;
    let z = false;
    for (let i = 0; i < n; i++) {
      const part = parts + 4 * i + f.u32(parts + 4 * i);
      const wkb = fgbWkb(f, part, POLYGON);
      if (!wkb) return undefined;
      if (i === 0) z = coordinates(f, part)?.z !== -1;
      polygons.push(wkb);
      size += wkb.length;
    }
    const out = new Uint8Array(size);
    const v = new DataView(out.buffer);
    out[0] = 1;
    v.setUint32(1, z ? 1006 : 6, true);
    v.setUint32(5, n, true);
    let at = 9;
    for (const p of polygons) {
      out.set(p, at);
      at += p.length;
    }
    return out;
  }
  const c = coordinates(f, g);
  if (!c) return undefined;
  const z = c.z >= 0;
  const dims = z ? 3 : 2;
  const { points } = c;
  const multi = type === POLYGON || type === MULTILINESTRING;
  const runs = multi && c.runs > 0 ? c.runs : 1;
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
      size = 9 + 4 * runs + 8 * dims * points;
      break;
    case MULTILINESTRING:
      size = 9 + 9 * runs + 8 * dims * points;
      break;
    default:
      return undefined;
  }
  const out = new Uint8Array(size);
  const v = new DataView(out.buffer);
  const w = new WkbWriter(out, v, f, c, z);
  switch (type) {
    case POINT:
      w.head(POINT);
      w.point(0);
      break;
    case LINESTRING:
      w.head(LINESTRING);
      w.count(points);
      for (let i = 0; i < points; i++) w.point(i);
      break;
    case MULTIPOINT:
      w.head(MULTIPOINT);
      w.count(points);
      for (let i = 0; i < points; i++) {
        w.head(POINT);
        w.point(i);
      }
      break;
    case POLYGON:
    case MULTILINESTRING: {
      w.head(type);
      w.count(runs);
      let start = 0;
      for (let r = 0; r < runs; r++) {
        const end = multi && c.runs > 0 ? f.u32(c.ends + 4 * r) : points;
        if (end < start || end > points) throw new RangeError("a ring or part ends outside the geometry's points");
        if (type === MULTILINESTRING) w.head(LINESTRING);
        w.count(end - start);
        for (let i = start; i < end; i++) w.point(i);
        start = end;
      }
      break;
    }
  }
  return w.at === size ? out : undefined;
}

/** Writes one geometry's WKB: a header, a count, a point read from the feature's xy (and z) vectors. */
class WkbWriter {
  at = 0;
  constructor(
    private readonly out: Uint8Array,
    private readonly v: DataView,
    private readonly f: FgbFeature,
    private readonly c: Coordinates,
    private readonly z: boolean,
  ) {}

  head(t: number): void {
    this.out[this.at] = 1;
    this.v.setUint32(this.at + 1, this.z ? 1000 + t : t, true);
    this.at += 5;
  }

  count(n: number): void {
    this.v.setUint32(this.at, n, true);
    this.at += 4;
  }

  point(i: number): void {
    const x = this.f.f64(this.c.xy + 16 * i);
    const y = this.f.f64(this.c.xy + 16 * i + 8);
    // x - x is NaN for NaN and for either infinity: one test for all three.
    if (x - x !== 0 || y - y !== 0) throw notFinite();
    this.v.setFloat64(this.at, x, true);
    this.v.setFloat64(this.at + 8, y, true);
    this.at += 16;
    if (this.z) {
      const h = this.f.f64(this.c.z + 8 * i);
      if (h - h !== 0) throw notFinite();
      this.v.setFloat64(this.at, h, true);
      this.at += 8;
    }
  }
}

const notFinite = () => new RangeError("a coordinate is not a finite number (NaN or infinite)");

const CIRCULARSTRING = 8;
const COMPOUNDCURVE = 9;
const CURVEPOLYGON = 10;
const MULTICURVE = 11;
const MULTISURFACE = 12;
const GEOMETRYCOLLECTION = 7;
/** The type a curve's part has when the part leaves it unsaid (a collection's parts always say). */
const PART_DEFAULT: Record<number, number> = {
  [GEOMETRYCOLLECTION]: 0,
  [COMPOUNDCURVE]: LINESTRING,
  [CURVEPOLYGON]: LINESTRING,
  [MULTICURVE]: LINESTRING,
  [MULTISURFACE]: POLYGON,
};

/**
 * A FlatGeobuf curve (CircularString, CompoundCurve, CurvePolygon, MultiCurve, MultiSurface) as ISO WKB of the same
 * curve type, for geo/curves.ts to make straight: a CircularString is stored as a LineString's points, the others as
 * typed parts. A GeometryCollection too, whose members may be curves. Undefined for an empty one.
 */
export function fgbCurveWkb(f: FgbFeature, g: number, type: number): Uint8Array | undefined {
  if (type === CIRCULARSTRING) {
    const line = fgbWkb(f, g, LINESTRING);
    if (!line) return undefined;
    const v = new DataView(line.buffer, line.byteOffset, line.byteLength);
    v.setUint32(1, v.getUint32(1, true) - LINESTRING + CIRCULARSTRING, true);
    return line;
  }
  const fallback = PART_DEFAULT[type];
  if (fallback === undefined) return undefined;
  const [parts, n] = f.vector(g, GEOMETRY_FIELD.parts, 4);
  const members: Uint8Array[] = [];
  for (let i = 0; i < n; i++) {
    const part = parts + 4 * i + f.u32(parts + 4 * i);
    const partType = f.geometryType(part) || fallback;
    const wkb =
      partType in PART_DEFAULT || partType === CIRCULARSTRING
        ? fgbCurveWkb(f, part, partType)
        : fgbWkb(f, part, partType);
    // A collection's empty or unusual member is left to the package's reader, which reads those.
    if (!wkb && type === GEOMETRYCOLLECTION) return undefined;
    if (!wkb) throw new RangeError(`part ${i + 1} of a curve is empty or not a line, an arc or a polygon`);
    members.push(wkb);
  }
  if (members.length === 0) return undefined;
  const z = members.some((m) => new DataView(m.buffer, m.byteOffset, m.byteLength).getUint32(1, true) >= 1000);
  const out = new Uint8Array(9 + members.reduce((s, m) => s + m.length, 0));
  const v = new DataView(out.buffer);
  out[0] = 1;
  v.setUint32(1, z ? 1000 + type : type, true);
  v.setUint32(5, members.length, true);
  let at = 9;
  for (const m of members) {
    out.set(m, at);
    at += m.length;
  }
  return out;
}
