import type { Geometry, Position } from "./geometry.js";
import { encodeWkb, WkbError } from "./wkb.js";

/**
 * Curves (ISO 13249: CircularString, CompoundCurve, CurvePolygon, MultiCurve, MultiSurface) made straight segments
 * as OGR makes them (`ogr2ogr -nlt CONVERT_TO_LINEAR`, GetLinearGeometry with its defaults), so a file's arcs read
 * as every OGR-based tool reads them: a 4° step of arc, at least 7 and an odd number of steps per arc, each arc
 * stroked from the end that sorts last (so an arc shared by two polygons gives the same vertices both ways), and
 * the arc's middle point hidden in the low byte of the first and last strokes' coordinates (OGR's "stealth"
 * points, ~1e-13 of a coordinate), so positions equal OGR's to the last bits, not merely within a tolerance.
 */

/** OGR's default step of arc (OGR_ARC_STEPSIZE), in radians as OGR computes it. */
const STEP = (4 / 180) * Math.PI;
/** The 32-bit scale of the hidden middle point's angle ratio. */
const HIDDEN_SCALE = 2 ** 32 - 2;

/** WKB base codes of the curve types, and the linear type each becomes. */
export const CURVE_CODES: Readonly<Record<number, string>> = {
  8: "CircularString",
  9: "CompoundCurve",
  10: "CurvePolygon",
  11: "MultiCurve",
  12: "MultiSurface",
};

interface Circle {
  r: number;
  cx: number;
  cy: number;
  a0: number;
  a1: number;
  a2: number;
}

/** The circle through three points and their angles on it (counter-clockwise positive); undefined when collinear. */
function circleOf(x0: number, y0: number, x1: number, y1: number, x2: number, y2: number): Circle | undefined {
  if ([x0, y0, x1, y1, x2, y2].some(Number.isNaN)) return undefined;
  if (x0 === x2 && y0 === y2) {
    // A full circle: its middle point is across the diameter; OGR (like PostGIS) goes counter-clockwise.
    if (x0 === x1 && y0 === y1) return undefined;
    const cx = (x0 + x1) / 2;
    const cy = (y0 + y1) / 2;
    const a0 = Math.atan2(y0 - cy, x0 - cx);
    return { r: distance(cx, cy, x0, y0), cx, cy, a0, a1: a0 + Math.PI, a2: a0 + 2 * Math.PI };
  }
  // Scaled to the largest difference so the determinant is not a difference of large numbers.
  let dx01 = x1 - x0;
  let dy01 = y1 - y0;
  let dx12 = x2 - x1;
  let dy12 = y2 - y1;
  const scale = Math.max(Math.abs(dx01), Math.abs(dy01), Math.abs(dx12), Math.abs(dy12));
  const inv = 1 / scale;
  dx01 *= inv;
  dy01 *= inv;
  dx12 *= inv;
  dy12 *= inv;
  const det = dx01 * dy12 - dx12 * dy01;
  if (Math.abs(det) < 1e-8 || Number.isNaN(det)) return undefined;
  const c01 = dx01 * ((x0 + x1) * inv) + dy01 * ((y0 + y1) * inv);
  const c12 = dx12 * ((x1 + x2) * inv) + dy12 * ((y1 + y2) * inv);
  const cx = (0.5 * scale * (c01 * dy12 - c12 * dy01)) / det;
  const cy = (0.5 * scale * (-c01 * dx12 + c12 * dx01)) / det;
  const a0 = Math.atan2((y0 - cy) * inv, (x0 - cx) * inv);
  let a1 = Math.atan2((y1 - cy) * inv, (x1 - cx) * inv);
  let a2 = Math.atan2((y2 - cy) * inv, (x2 - cx) * inv);
  if (det < 0) {
    if (a1 > a0) a1 -= 2 * Math.PI;
    if (a2 > a1) a2 -= 2 * Math.PI;
  } else {
    if (a1 < a0) a1 += 2 * Math.PI;
    if (a2 < a1) a2 += 2 * Math.PI;
  }
  return { r: distance(cx, cy, x0, y0), cx, cy, a0, a1, a2 };
}

const distance = (x0: number, y0: number, x1: number, y1: number) =>
  Math.sqrt((x1 - x0) * (x1 - x0) + (y1 - y0) * (y1 - y0));

/** The strokes strictly between two angles, an odd number ≥ 7 of equal steps (z follows the angle). */
function stroke(out: Position[], c: Circle, z0: number, z1: number, hasZ: boolean, sign: number): void {
  const { a0, a1 } = { a0: c.a0, a1: c.a2 };
  const steps = Math.abs((a1 - a0) / (STEP * sign)) + 0.5;
  if (!Number.isFinite(steps) || steps >= 2 ** 31) return;
  let n = Math.trunc(steps);
  n = n < 7 ? 7 : 7 + 2 * Math.trunc((n - 7 + 1) / 2);
  const step = sign * Math.abs((a1 - a0) / n);
  for (let a = a0 + step; (a - a1) * sign < -1e-8; a += step) {
    const p = [c.cx + c.r * Math.cos(a), c.cy + c.r * Math.sin(a)];
    if (hasZ) p.push(z0 + ((z1 - z0) * (a - a0)) / (a1 - a0));
    out.push(p);
  }
}

const cell = new Float64Array(1);
const cellBytes = new Uint8Array(cell.buffer);

/** A 16-bit value into the lowest mantissa byte of x (low half) and y (high half), as OGR hides it. */
function hide(p: Position, value: number): void {
  cell[0] = p[0] as number;
  cellBytes[0] = value & 0xff;
  p[0] = cell[0];
  cell[0] = p[1] as number;
  cellBytes[0] = value >> 8;
  p[1] = cell[0];
}

/** One arc through three positions as a line: its ends kept, strokes between. */
function arcLine(p0: Position, p1: Position, p2: Position, hasZ: boolean): Position[] {
  const [x0, y0] = p0 as [number, number];
  const [x2, y2] = p2 as [number, number];
  if (x0 < x2 || (x0 === x2 && y0 < y2)) return arcLine(p2, p1, p0, hasZ).reverse();
  const c = circleOf(x0, y0, p1[0] as number, p1[1] as number, x2, y2);
  const z = (p: Position) => (hasZ ? (p[2] ?? 0) : 0);
  const line: Position[] = [hasZ ? [x0, y0, z(p0)] : [x0, y0]];
  if (!c) {
    // Collinear: OGR keeps the three points as they are.
    line.push(hasZ ? [p1[0] as number, p1[1] as number, z(p1)] : [p1[0] as number, p1[1] as number]);
  } else {
    stroke(line, c, z(p0), z(p2), hasZ, c.a1 >= c.a0 ? 1 : -1);
    if (line.length > 6) {
      let ratio = 0.5 + HIDDEN_SCALE * ((c.a1 - c.a0) / (c.a2 - c.a0));
      if (ratio < 0) ratio = -ratio;
      else if (!(ratio < 2 ** 32 - 1)) ratio = 2 ** 32 - 1;
      const hidden = Math.trunc(ratio) >>> 0;
      const low = hidden & 0xffff;
      const high = hidden >>> 16;
      const last = line.length - 2;
      for (let i = 1; i + 1 < line.length; i += 2) {
        hide(line[i] as Position, i === 1 ? low : i === last ? high : 0xffff);
        hide(line[i + 1] as Position, i === 1 ? high : i === last ? low : 0xffff);
      }
    }
  }
  line.push(hasZ ? [x2, y2, z(p2)] : [x2, y2]);
  return line;
}

/** A CircularString's positions (3, 5, 7, …: arcs sharing their ends) as a line's. */
export function circularLine(points: readonly Position[], hasZ: boolean): Position[] {
  if (points.length === 0) return [];
  if (points.length < 3 || points.length % 2 === 0)
    throw new RangeError(`a CircularString has ${points.length} points: it needs 3, 5, 7, … (arcs sharing their ends)`);
  const out: Position[] = [];
  for (let i = 0; i + 2 < points.length; i += 2) {
    const arc = arcLine(points[i] as Position, points[i + 1] as Position, points[i + 2] as Position, hasZ);
    for (let k = i === 0 ? 0 : 1; k < arc.length; k++) out.push(arc[k] as Position);
  }
  return out;
}

/** Lines one after another, each joint kept once (a CompoundCurve's members). */
export function joinedLine(parts: readonly Position[][]): Position[] {
  const out: Position[] = [];
  parts.forEach((part, i) => {
    for (let k = i === 0 || out.length === 0 ? 0 : 1; k < part.length; k++) out.push(part[k] as Position);
  });
  return out;
}

/** Reads WKB of any type, curves made lines on the way; M values dropped, as everywhere. */
class CurveReader {
  private at = 0;
  private readonly view: DataView;
  constructor(private readonly bytes: Uint8Array) {
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }

  private need(n: number): void {
    if (this.at + n > this.bytes.length)
      throw new WkbError(`truncated: ${n} bytes needed, ${this.bytes.length - this.at} left`, undefined, this.at);
  }

  private header(): { le: boolean; code: number; z: boolean; m: boolean } {
    this.need(5);
    const order = this.view.getUint8(this.at);
    if (order > 1) throw new WkbError(`byte order marker ${order} (must be 0 or 1)`, undefined, this.at);
    const le = order === 1;
    const raw = this.view.getUint32(this.at + 1, le);
    this.at += 5;
    let code = raw & 0x0fffffff;
    let z = (raw & 0x80000000) !== 0;
    let m = (raw & 0x40000000) !== 0;
    if (raw & 0x20000000) this.at += 4;
    if (code >= 1000 && code < 4000) {
      const kind = Math.trunc(code / 1000);
      z ||= kind === 1 || kind === 3;
      m ||= kind === 2 || kind === 3;
      code %= 1000;
    }
    return { le, code, z, m };
  }

  private count(le: boolean): number {
    this.need(4);
    const n = this.view.getUint32(this.at, le);
    this.at += 4;
    if (n > this.bytes.length) throw new WkbError(`a count of ${n} is larger than the geometry`, undefined, this.at);
    return n;
  }

  private points(le: boolean, z: boolean, m: boolean): Position[] {
    const n = this.count(le);
    const d = 2 + (z ? 1 : 0) + (m ? 1 : 0);
    this.need(8 * d * n);
    const out: Position[] = [];
    for (let i = 0; i < n; i++) {
      const p = [this.view.getFloat64(this.at, le), this.view.getFloat64(this.at + 8, le)];
      if (z) p.push(this.view.getFloat64(this.at + 16, le));
      out.push(p);
      this.at += 8 * d;
    }
    return out;
  }

  /** A curve member (LineString, CircularString, CompoundCurve) as a line's positions. */
  line(depth: number, hasZ: boolean): Position[] {
    const h = this.header();
    switch (h.code) {
      case 2:
        return this.points(h.le, h.z, h.m).map((p) => fit(p, hasZ));
      case 8:
        return circularLine(
          this.points(h.le, h.z, h.m).map((p) => fit(p, hasZ)),
          hasZ,
        );
      case 9: {
        const n = this.count(h.le);
        const parts: Position[][] = [];
        for (let i = 0; i < n; i++) parts.push(this.line(depth + 1, hasZ));
        return joinedLine(parts);
      }
      default:
        throw new WkbError(`a curve's member has type code ${h.code}, not a line or an arc`, undefined, this.at - 5);
    }
  }

  /** A surface member (Polygon, CurvePolygon) as a polygon's rings. */
  rings(hasZ: boolean): Position[][] {
    const h = this.header();
    if (h.code !== 3 && h.code !== 10)
      throw new WkbError(`a surface's member has type code ${h.code}, not a polygon`, undefined, this.at - 5);
    const n = this.count(h.le);
    const rings: Position[][] = [];
    for (let i = 0; i < n; i++)
      rings.push(h.code === 3 ? this.points(h.le, h.z, h.m).map((p) => fit(p, hasZ)) : this.line(1, hasZ));
    return rings;
  }

  geometry(depth: number, hasZ?: boolean): Geometry {
    if (depth > 32) throw new WkbError("geometry collections nested deeper than 32", undefined, this.at);
    const start = this.at;
    const h = this.header();
    const z = hasZ ?? h.z;
    this.at = start;
    switch (h.code) {
      case 2:
      case 8:
      case 9:
        return { type: "LineString", coordinates: this.line(depth, z) };
      case 3:
      case 10:
        return { type: "Polygon", coordinates: this.rings(z) };
      case 5:
      case 11: {
        this.header();
        const n = this.count(h.le);
        const lines: Position[][] = [];
        for (let i = 0; i < n; i++) lines.push(this.line(depth + 1, z));
        return { type: "MultiLineString", coordinates: lines };
      }
      case 6:
      case 12: {
        this.header();
        const n = this.count(h.le);
        const polygons: Position[][][] = [];
        for (let i = 0; i < n; i++) polygons.push(this.rings(z));
        return { type: "MultiPolygon", coordinates: polygons };
      }
      case 1: {
        this.header();
        const d = 2 + (h.z ? 1 : 0) + (h.m ? 1 : 0);
        this.need(8 * d);
        const p = [this.view.getFloat64(this.at, h.le), this.view.getFloat64(this.at + 8, h.le)];
        if (h.z) p.push(this.view.getFloat64(this.at + 16, h.le));
        this.at += 8 * d;
        return { type: "Point", coordinates: Number.isNaN(p[0]) && Number.isNaN(p[1]) ? [] : fit(p, z) };
      }
      case 4: {
        this.header();
        const n = this.count(h.le);
        const points: Position[] = [];
        for (let i = 0; i < n; i++) points.push((this.geometry(depth + 1, z) as { coordinates: Position }).coordinates);
        return { type: "MultiPoint", coordinates: points };
      }
      case 7: {
        this.header();
        const n = this.count(h.le);
        const geometries: Geometry[] = [];
        for (let i = 0; i < n; i++) geometries.push(this.geometry(depth + 1));
        return { type: "GeometryCollection", geometries };
      }
      default:
        throw new WkbError(`unknown geometry type code ${h.code}`, undefined, start);
    }
  }
}

/** A position with z (0 where it had none) or without, as its geometry's dimension says. */
function fit(p: Position, hasZ: boolean): Position {
  if (hasZ) return p.length >= 3 ? p : [p[0] as number, p[1] as number, 0];
  return p.length > 2 ? [p[0] as number, p[1] as number] : p;
}

/** Whether a WKB value is a curve or holds one (collections looked into, header by header). */
export function holdsCurve(wkb: Uint8Array): boolean {
  if (wkb.length < 5) return false;
  const le = wkb[0] === 1;
  const code = (new DataView(wkb.buffer, wkb.byteOffset + 1, 4).getUint32(0, le) & 0x0fffffff) % 1000;
  if (code >= 8 && code <= 12) return true;
  return code === 7 && collectionHasCurve(wkb);
}

/** Whether a collection's members (at any depth) include a curve type code. */
function collectionHasCurve(wkb: Uint8Array): boolean {
  const view = new DataView(wkb.buffer, wkb.byteOffset, wkb.byteLength);
  // Walk member headers only: a collection nests headers, and every curve type is 8–12.
  let found = false;
  const walk = (at: number, depth: number): number => {
    if (depth > 32 || at + 5 > wkb.length)
      throw new WkbError("a collection is truncated or nested too deep", undefined, at);
    const le = view.getUint8(at) === 1;
    const raw = view.getUint32(at + 1, le);
    const code = (raw & 0x0fffffff) % 1000;
    const kind = Math.trunc((raw & 0x0fffffff) / 1000);
    const d =
      2 +
      ((raw & 0x80000000) !== 0 || kind === 1 || kind === 3 ? 1 : 0) +
      ((raw & 0x40000000) !== 0 || kind >= 2 ? 1 : 0);
    let p = at + 5 + (raw & 0x20000000 ? 4 : 0);
    if (code >= 8 && code <= 12) found = true;
    if (code === 1) return p + 8 * d;
    const n = view.getUint32(p, le);
    p += 4;
    if (code === 2) return p + 8 * d * n;
    if (code === 3) {
      for (let i = 0; i < n; i++) p = 4 + p + 8 * d * view.getUint32(p, le);
      return p;
    }
    for (let i = 0; i < n && !found; i++) p = walk(p, depth + 1);
    return p;
  };
  walk(0, 0);
  return found;
}

/** WKB with curves in it → the same geometry with every arc made straight segments as OGR makes them. */
export function linearizeWkb(wkb: Uint8Array): Uint8Array {
  return encodeWkb(new CurveReader(wkb).geometry(0));
}
