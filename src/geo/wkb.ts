import { emptyBBox, TYPE_OF_CODE, WKB_CODE } from "./geometry.js";
import type { BBox, Geometry, GeometryType, Position } from "./geometry.js";
import { GeorefreshError } from "../errors.js";
import type { ErrorCode } from "../errors.js";

/** Malformed WKB, located by row and byte offset so the bad value can be found in the source. */
export class WkbError extends GeorefreshError {
  override readonly code: ErrorCode = "Wkb";

  constructor(
    message: string,
    readonly row: number | undefined,
    readonly byteOffset: number,
  ) {
    super(`${row === undefined ? "" : `row ${row}: `}invalid WKB at byte ${byteOffset}: ${message}`);
    this.name = "WkbError";
  }
}

/** A column of WKB values laid out as an Arrow Binary column: one buffer plus row offsets. */
export interface WkbColumn {
  data: Uint8Array;
  offsets: Int32Array; // length rows + 1
  /** Per row xmin, ymin, xmax, ymax (NaN for empty geometries, which have no extent). */
  bboxes: Float64Array;
  /** Geometry types present, with " Z" for 3D, as GeoParquet's geometry_types spells them. */
  types: Set<string>;
}

/** Coordinate count of the first position found in nested coordinate arrays (0 when empty). */
function firstDims(c: unknown): number {
  while (Array.isArray(c) && c.length > 0) {
    if (typeof c[0] === "number") return c.length;
    c = c[0];
  }
  return 0;
}

function dims(g: Geometry): number {
  if (g.type !== "GeometryCollection") return firstDims(g.coordinates);
  for (const child of g.geometries) {
    const d = dims(child);
    if (d) return d;
  }
  return 0;
}

function sizeOf(g: Geometry, d: number): number {
  const pt = 8 * d;
  switch (g.type) {
    case "Point":
      return 5 + pt;
    case "LineString":
    case "MultiPoint":
      return g.type === "LineString" ? 9 + g.coordinates.length * pt : 9 + g.coordinates.length * (5 + pt);
    case "Polygon":
      return 9 + g.coordinates.reduce((s, r) => s + 4 + r.length * pt, 0);
    case "MultiLineString":
      return 9 + g.coordinates.reduce((s, l) => s + 9 + l.length * pt, 0);
    case "MultiPolygon":
      return 9 + g.coordinates.reduce((s, p) => s + 9 + p.reduce((t, r) => t + 4 + r.length * pt, 0), 0);
    case "GeometryCollection":
      return 9 + g.geometries.reduce((s, c) => s + sizeOf(c, d), 0);
  }
}

/** Writes WKB into a pre-sized buffer, tracking the bbox of what it wrote; fields, not closures, keep V8 fast. */
class WkbWriter {
  pos = 0;
  d = 2;
  xmin = Infinity;
  ymin = Infinity;
  xmax = -Infinity;
  ymax = -Infinity;
  private readonly view: DataView;
  constructor(private readonly out: Uint8Array) {
    this.view = new DataView(out.buffer, out.byteOffset, out.byteLength);
  }

  resetBox(): void {
    this.xmin = this.ymin = Infinity;
    this.xmax = this.ymax = -Infinity;
  }

  header(type: GeometryType): void {
    this.view.setUint8(this.pos, 1);
    this.view.setUint32(this.pos + 1, WKB_CODE[type] + (this.d === 3 ? 1000 : 0), true);
    this.pos += 5;
  }

  count(k: number): void {
    this.view.setUint32(this.pos, k, true);
    this.pos += 4;
  }

  /** A counted run of points (a LineString body or a ring). */
  points(ps: Position[]): void {
    const view = this.view;
    const z = this.d === 3;
    let pos = this.pos;
    let { xmin, ymin, xmax, ymax } = this;
    view.setUint32(pos, ps.length, true);
    pos += 4;
    for (let k = 0; k < ps.length; k++) {
      const p = ps[k] as Position;
      const x = p[0] as number;
      const y = p[1] as number;
      view.setFloat64(pos, x, true);
      view.setFloat64(pos + 8, y, true);
      if (z) {
        view.setFloat64(pos + 16, p[2] ?? NaN, true);
        pos += 24;
      } else pos += 16;
      if (x < xmin) xmin = x;
      if (x > xmax) xmax = x;
      if (y < ymin) ymin = y;
      if (y > ymax) ymax = y;
    }
    this.pos = pos;
    this.xmin = xmin;
    this.ymin = ymin;
    this.xmax = xmax;
    this.ymax = ymax;
  }

  point(p: Position): void {
    const view = this.view;
    // POINT EMPTY is NaN coordinates by convention (GEOS, PostGIS, GDAL).
    const empty = p.length === 0;
    const x = empty ? NaN : (p[0] as number);
    const y = empty ? NaN : (p[1] as number);
    view.setFloat64(this.pos, x, true);
    view.setFloat64(this.pos + 8, y, true);
    if (this.d === 3) view.setFloat64(this.pos + 16, empty ? NaN : (p[2] ?? NaN), true);
    this.pos += 8 * this.d;
    if (empty) return;
    if (x < this.xmin) this.xmin = x;
    if (x > this.xmax) this.xmax = x;
    if (y < this.ymin) this.ymin = y;
    if (y > this.ymax) this.ymax = y;
  }

  geometry(g: Geometry): void {
    this.header(g.type);
    switch (g.type) {
      case "Point":
        return this.point(g.coordinates);
      case "LineString":
        return this.points(g.coordinates);
      case "Polygon":
        this.count(g.coordinates.length);
        for (const ring of g.coordinates) this.points(ring);
        return;
      case "MultiPoint":
        this.count(g.coordinates.length);
        for (const p of g.coordinates) {
          this.header("Point");
          this.point(p);
        }
        return;
      case "MultiLineString":
        this.count(g.coordinates.length);
        for (const l of g.coordinates) {
          this.header("LineString");
          this.points(l);
        }
        return;
      case "MultiPolygon":
        this.count(g.coordinates.length);
        for (const poly of g.coordinates) {
          this.header("Polygon");
          this.count(poly.length);
          for (const ring of poly) this.points(ring);
        }
        return;
      case "GeometryCollection":
        this.count(g.geometries.length);
        for (const c of g.geometries) this.geometry(c);
        return;
    }
  }
}

/**
 * Encodes geometries as little-endian ISO WKB into one pre-sized buffer (two passes: sizes, then bytes), which
 * feeds an Arrow Binary column directly. Tracks each row's bbox and the set of types on the way.
 */
export function encodeWkbColumn(geometries: readonly Geometry[]): WkbColumn {
  const n = geometries.length;
  const offsets = new Int32Array(n + 1);
  const rowDims = new Uint8Array(n);
  let total = 0;
  for (let i = 0; i < n; i++) {
    const g = geometries[i] as Geometry;
    const d = dims(g) === 3 ? 3 : 2;
    rowDims[i] = d;
    total += sizeOf(g, d);
    if (total > 0x7fffffff) throw new RangeError(`WKB column passes 2 GiB at row ${i}: write fewer rows per batch`);
    offsets[i + 1] = total;
  }
  const data = new Uint8Array(total);
  const writer = new WkbWriter(data);
  const bboxes = new Float64Array(4 * n);
  const types = new Set<string>();
  for (let i = 0; i < n; i++) {
    const g = geometries[i] as Geometry;
    writer.d = rowDims[i] as number;
    writer.resetBox();
    writer.geometry(g);
    const empty = !(writer.xmin <= writer.xmax);
    bboxes[4 * i] = empty ? NaN : writer.xmin;
    bboxes[4 * i + 1] = empty ? NaN : writer.ymin;
    bboxes[4 * i + 2] = empty ? NaN : writer.xmax;
    bboxes[4 * i + 3] = empty ? NaN : writer.ymax;
    types.add(writer.d === 3 ? `${g.type} Z` : g.type);
  }
  return { data, offsets, bboxes, types };
}

export function encodeWkb(geometry: Geometry): Uint8Array {
  return encodeWkbColumn([geometry]).data;
}

/**
 * Reads the type word of a WKB value: base type, Z, M, and whether an EWKB SRID follows. Readers skip M values
 * (GeoParquet 2.0 allows XYM and XYZM); the writer path refuses them where it canonicalises (wkb-rewrite.ts).
 */
export function readType(view: DataView, pos: number, le: boolean, row: number | undefined) {
  const raw = view.getUint32(pos, le);
  let code = raw & 0x0fffffff;
  let z = (raw & 0x80000000) !== 0;
  let m = (raw & 0x40000000) !== 0;
  const srid = (raw & 0x20000000) !== 0;
  if (code >= 3000 && code < 4000) [z, m, code] = [true, true, code - 3000];
  else if (code >= 2000) [m, code] = [true, code - 2000];
  else if (code >= 1000) [z, code] = [true, code - 1000];
  if (code < 1 || code > 7) throw new WkbError(`unknown geometry type code ${raw}`, row, pos);
  return { type: TYPE_OF_CODE[code] as GeometryType, z, m, srid };
}

/**
 * The base type code (1 Point … 7 GeometryCollection) of a WKB value from its first five bytes, or 0 when they
 * are not a type word; for fast paths that need no decoding (a point has no area, and is valid once finite).
 */
export function wkbBaseCode(bytes: Uint8Array): number {
  if (bytes.byteLength < 5 || (bytes[0] !== 0 && bytes[0] !== 1)) return 0;
  const [a, b, c, d] = [bytes[1] as number, bytes[2] as number, bytes[3] as number, bytes[4] as number];
  const raw = (bytes[0] === 1 ? a | (b << 8) | (c << 16) | (d << 24) : d | (c << 8) | (b << 16) | (a << 24)) >>> 0;
  const code = (raw & 0x0fffffff) % 1000;
  return code >= 1 && code <= 7 ? code : 0;
}

/** The part type each Multi* geometry must hold. */
export const PART_TYPE: Partial<Record<GeometryType, GeometryType>> = {
  MultiPoint: "Point",
  MultiLineString: "LineString",
  MultiPolygon: "Polygon",
};

/**
 * One geometry header at `at` (byte order, type word, optional EWKB SRID), with the checks every WKB walker
 * makes: not nested past 32, complete, a known order and type, the part type a Multi* requires. Returns where
 * the geometry's body starts. Offsets in errors are `at`-relative to the view, as the caller positions it.
 */
export function readHeader(
  view: DataView,
  at: number,
  end: number,
  row: number | undefined,
  depth: number,
  expected?: GeometryType,
) {
  if (depth > 32) throw new WkbError("geometry collections nested deeper than 32", row, at);
  if (at + 5 > end) throw new WkbError(`truncated: header needs 5 bytes, ${end - at} left`, row, at);
  const order = view.getUint8(at);
  if (order > 1) throw new WkbError(`byte order marker ${order} (must be 0 or 1)`, row, at);
  const le = order === 1;
  const { type, z, m, srid } = readType(view, at + 1, le, row);
  if (expected && type !== expected) throw new WkbError(`a part is a ${type}, expected ${expected}`, row, at);
  if (srid && at + 9 > end) throw new WkbError(`truncated: SRID needs 4 bytes, ${end - at - 5} left`, row, at + 5);
  return { le, type, z, m, body: at + (srid ? 9 : 5) };
}

/** Reads WKB values; methods instead of per-call closures keep decoding cheap on hot paths. */
class WkbReader {
  pos = 0;
  private le = true;
  /** Doubles per position (2–4) and whether the third is Z. */
  private d = 2;
  private z = false;
  private readonly view: DataView;

  constructor(
    private readonly bytes: Uint8Array,
    private readonly row: number | undefined,
  ) {
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }

  need(k: number, what: string): void {
    if (this.pos + k > this.bytes.byteLength) {
      throw new WkbError(
        `truncated: ${what} needs ${k} bytes, ${this.bytes.byteLength - this.pos} left`,
        this.row,
        this.pos,
      );
    }
  }

  u32(what: string): number {
    this.need(4, what);
    const v = this.view.getUint32(this.pos, this.le);
    this.pos += 4;
    return v;
  }

  /** A count from untrusted bytes, checked to fit before anything is allocated for it. */
  counted(what: string, minBytesEach: number): number {
    const k = this.u32(what);
    this.need(k * minBytesEach, `${k} × ${what.replace(" count", "")}`);
    return k;
  }

  position(): Position {
    const { view, le } = this;
    const p = [view.getFloat64(this.pos, le), view.getFloat64(this.pos + 8, le)];
    if (this.z) p.push(view.getFloat64(this.pos + 16, le));
    this.pos += 8 * this.d; // an M value, if any, is read past: positions are XY or XYZ
    return p;
  }

  positions(): Position[] {
    const k = this.u32("point count");
    this.need(k * 8 * this.d, `${k} points`);
    const out: Position[] = new Array(k);
    for (let i = 0; i < k; i++) out[i] = this.position();
    return out;
  }

  parts(type: GeometryType, expected: GeometryType, depth: number): Geometry[] {
    const k = this.counted("part count", 5);
    const out: Geometry[] = new Array(k);
    for (let i = 0; i < k; i++) {
      const at = this.pos;
      const child = this.geometry(depth + 1);
      if (child.type !== expected)
        throw new WkbError(`${type} holds a ${child.type}, expected ${expected}`, this.row, at);
      out[i] = child;
    }
    return out;
  }

  geometry(depth: number): Geometry {
    if (depth > 32) throw new WkbError("geometry collections nested deeper than 32", this.row, this.pos);
    this.need(5, "header");
    const order = this.view.getUint8(this.pos);
    if (order > 1) throw new WkbError(`byte order marker ${order} (must be 0 or 1)`, this.row, this.pos);
    // Each value carries its own byte order; children of a collection may differ from their parent.
    this.le = order === 1;
    const { type, z, m, srid } = readType(this.view, this.pos + 1, this.le, this.row);
    this.pos += 5;
    if (srid) {
      this.need(4, "SRID");
      this.pos += 4;
    }
    this.z = z;
    this.d = 2 + (z ? 1 : 0) + (m ? 1 : 0);
    switch (type) {
      case "Point": {
        this.need(8 * this.d, "coordinate");
        const p = this.position();
        return { type, coordinates: p.every(Number.isNaN) ? [] : p };
      }
      case "LineString":
        return { type, coordinates: this.positions() };
      case "Polygon": {
        const k = this.counted("ring count", 4);
        const rings: Position[][] = new Array(k);
        for (let i = 0; i < k; i++) rings[i] = this.positions();
        return { type, coordinates: rings };
      }
      case "MultiPoint":
        return {
          type,
          coordinates: this.parts(type, "Point", depth).map((g) => (g as { coordinates: Position }).coordinates),
        };
      case "MultiLineString":
        return {
          type,
          coordinates: this.parts(type, "LineString", depth).map((g) => (g as { coordinates: Position[] }).coordinates),
        };
      case "MultiPolygon":
        return {
          type,
          coordinates: this.parts(type, "Polygon", depth).map((g) => (g as { coordinates: Position[][] }).coordinates),
        };
      case "GeometryCollection": {
        const k = this.counted("geometry count", 5);
        const geometries: Geometry[] = new Array(k);
        for (let i = 0; i < k; i++) geometries[i] = this.geometry(depth + 1);
        return { type, geometries };
      }
    }
  }
}

/** Decodes one WKB value (either byte order; ISO or EWKB Z flags; EWKB SRID skipped). */
export function decodeWkb(bytes: Uint8Array, row?: number): Geometry {
  const reader = new WkbReader(bytes, row);
  const g = reader.geometry(0);
  if (reader.pos !== bytes.byteLength)
    throw new WkbError(`${bytes.byteLength - reader.pos} bytes left over after the geometry`, row, reader.pos);
  return g;
}

/** What metadata checks need from one WKB value: its type string (with " Z"), bbox, and any non-finite x/y. */
export function wkbSummary(bytes: Uint8Array, row?: number): { type: string; bbox: BBox; nonFinite: boolean } {
  const g = decodeWkb(bytes, row);
  const { z, m } = readType(new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength), 1, bytes[0] === 1, row);
  const bbox = emptyBBox();
  let nonFinite = false;
  forEachPosition(g, (p) => {
    const x = p[0] as number;
    const y = p[1] as number;
    if (!Number.isFinite(x) || !Number.isFinite(y)) nonFinite = true;
    else {
      if (x < bbox[0]) bbox[0] = x;
      if (y < bbox[1]) bbox[1] = y;
      if (x > bbox[2]) bbox[2] = x;
      if (y > bbox[3]) bbox[3] = y;
    }
  });
  return { type: `${g.type}${z && m ? " ZM" : z ? " Z" : m ? " M" : ""}`, bbox, nonFinite };
}

export function forEachPosition(g: Geometry, fn: (p: Position) => void): void {
  const walk = (c: unknown): void => {
    if (!Array.isArray(c) || c.length === 0) return;
    if (typeof c[0] === "number") fn(c as Position);
    else for (const x of c) walk(x);
  };
  if (g.type === "GeometryCollection") for (const child of g.geometries) forEachPosition(child, fn);
  else walk(g.coordinates);
}
