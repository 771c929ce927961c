import { emptyBBox, TYPE_OF_CODE, WKB_CODE } from "./geometry.js";
import type { BBox, Geometry, GeometryType, Position } from "./geometry.js";

/** Malformed WKB, located by row and byte offset so the bad value can be found in the source. */
export class WkbError extends Error {
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

function dims(g: Geometry): number {
  const first = (c: unknown): number | undefined => {
    if (!Array.isArray(c) || c.length === 0) return undefined;
    return typeof c[0] === "number" ? c.length : first(c[0]);
  };
  if (g.type === "GeometryCollection") {
    for (const child of g.geometries) {
      const d = dims(child);
      if (d) return d;
    }
    return 0;
  }
  return first(g.coordinates) ?? 0;
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
  const view = new DataView(data.buffer);
  const bboxes = new Float64Array(4 * n);
  const types = new Set<string>();
  let pos = 0;
  let box: BBox = emptyBBox();
  let d = 2;

  const header = (type: GeometryType) => {
    view.setUint8(pos, 1);
    view.setUint32(pos + 1, WKB_CODE[type] + (d === 3 ? 1000 : 0), true);
    pos += 5;
  };
  const count = (k: number) => {
    view.setUint32(pos, k, true);
    pos += 4;
  };
  const point = (p: Position) => {
    const x = p[0] as number;
    const y = p[1] as number;
    view.setFloat64(pos, x, true);
    view.setFloat64(pos + 8, y, true);
    if (d === 3) view.setFloat64(pos + 16, p[2] ?? NaN, true);
    pos += 8 * d;
    if (x < box[0]) box[0] = x;
    if (y < box[1]) box[1] = y;
    if (x > box[2]) box[2] = x;
    if (y > box[3]) box[3] = y;
  };
  const points = (ps: Position[]) => {
    count(ps.length);
    for (const p of ps) point(p);
  };
  const write = (g: Geometry): void => {
    header(g.type);
    switch (g.type) {
      case "Point":
        if (g.coordinates.length === 0) {
          // POINT EMPTY is NaN coordinates by convention (GEOS, PostGIS, GDAL).
          for (let k = 0; k < d; k++) view.setFloat64(pos + 8 * k, NaN, true);
          pos += 8 * d;
        } else point(g.coordinates);
        return;
      case "LineString":
        return points(g.coordinates);
      case "Polygon":
        count(g.coordinates.length);
        for (const ring of g.coordinates) points(ring);
        return;
      case "MultiPoint":
        count(g.coordinates.length);
        for (const p of g.coordinates) write({ type: "Point", coordinates: p });
        return;
      case "MultiLineString":
        count(g.coordinates.length);
        for (const l of g.coordinates) write({ type: "LineString", coordinates: l });
        return;
      case "MultiPolygon":
        count(g.coordinates.length);
        for (const p of g.coordinates) write({ type: "Polygon", coordinates: p });
        return;
      case "GeometryCollection":
        count(g.geometries.length);
        for (const c of g.geometries) write(c);
        return;
    }
  };

  for (let i = 0; i < n; i++) {
    const g = geometries[i] as Geometry;
    d = rowDims[i] as number;
    box = emptyBBox();
    write(g);
    const empty = !(box[0] <= box[2]);
    bboxes.set(empty ? [NaN, NaN, NaN, NaN] : box, 4 * i);
    types.add(d === 3 ? `${g.type} Z` : g.type);
  }
  return { data, offsets, bboxes, types };
}

export function encodeWkb(geometry: Geometry): Uint8Array {
  return encodeWkbColumn([geometry]).data;
}

/** Reads the type word of a WKB value: base type, Z, M, and whether an EWKB SRID follows. */
function readType(view: DataView, pos: number, le: boolean, row: number | undefined) {
  const raw = view.getUint32(pos, le);
  let code = raw & 0x0fffffff;
  let z = (raw & 0x80000000) !== 0;
  let m = (raw & 0x40000000) !== 0;
  const srid = (raw & 0x20000000) !== 0;
  if (code >= 3000 && code < 4000) [z, m, code] = [true, true, code - 3000];
  else if (code >= 2000) [m, code] = [true, code - 2000];
  else if (code >= 1000) [z, code] = [true, code - 1000];
  if (code < 1 || code > 7) throw new WkbError(`unknown geometry type code ${raw}`, row, pos);
  if (m) throw new WkbError("M coordinates are not supported (GeoParquet stores XY or XYZ)", row, pos);
  return { type: TYPE_OF_CODE[code] as GeometryType, z, srid };
}

/** Decodes one WKB value (either byte order; ISO or EWKB Z flags; EWKB SRID skipped). */
export function decodeWkb(bytes: Uint8Array, row?: number): Geometry {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let pos = 0;
  const need = (k: number, what: string) => {
    if (pos + k > bytes.byteLength) throw new WkbError(`truncated: ${what} needs ${k} bytes, ${bytes.byteLength - pos} left`, row, pos);
  };
  const read = (depth: number): Geometry => {
    if (depth > 32) throw new WkbError("geometry collections nested deeper than 32", row, pos);
    need(5, "header");
    const order = view.getUint8(pos);
    if (order > 1) throw new WkbError(`byte order marker ${order} (must be 0 or 1)`, row, pos);
    const le = order === 1;
    const { type, z, srid } = readType(view, pos + 1, le, row);
    pos += 5;
    if (srid) {
      need(4, "SRID");
      pos += 4;
    }
    const d = z ? 3 : 2;
    const u32 = (what: string) => {
      need(4, what);
      const v = view.getUint32(pos, le);
      pos += 4;
      return v;
    };
    const pt = (): Position => {
      need(8 * d, "coordinate");
      const p = [view.getFloat64(pos, le), view.getFloat64(pos + 8, le)];
      if (d === 3) p.push(view.getFloat64(pos + 16, le));
      pos += 8 * d;
      return p;
    };
    const pts = (): Position[] => {
      const k = u32("point count");
      need(k * 8 * d, `${k} points`);
      return Array.from({ length: k }, pt);
    };
    // Counts come from untrusted bytes: check they fit before allocating anything for them.
    const counted = (what: string, minBytesEach: number) => {
      const k = u32(what);
      need(k * minBytesEach, `${k} × ${what.replace(" count", "")}`);
      return k;
    };
    const children = <T>(expected: GeometryType, pick: (g: Geometry) => T): T[] => {
      const k = counted("part count", 5);
      return Array.from({ length: k }, () => {
        const at = pos;
        const child = read(depth + 1);
        if (child.type !== expected) throw new WkbError(`${type} holds a ${child.type}, expected ${expected}`, row, at);
        return pick(child);
      });
    };
    switch (type) {
      case "Point": {
        const p = pt();
        return { type, coordinates: p.every(Number.isNaN) ? [] : p };
      }
      case "LineString":
        return { type, coordinates: pts() };
      case "Polygon": {
        const k = counted("ring count", 4);
        return { type, coordinates: Array.from({ length: k }, pts) };
      }
      case "MultiPoint":
        return { type, coordinates: children("Point", (g) => (g as { coordinates: Position }).coordinates) };
      case "MultiLineString":
        return { type, coordinates: children("LineString", (g) => (g as { coordinates: Position[] }).coordinates) };
      case "MultiPolygon":
        return { type, coordinates: children("Polygon", (g) => (g as { coordinates: Position[][] }).coordinates) };
      case "GeometryCollection": {
        const k = counted("geometry count", 5);
        return { type, geometries: Array.from({ length: k }, () => read(depth + 1)) };
      }
    }
  };
  const g = read(0);
  if (pos !== bytes.byteLength) throw new WkbError(`${bytes.byteLength - pos} bytes left over after the geometry`, row, pos);
  return g;
}

/** What metadata checks need from one WKB value: its type string (with " Z"), bbox, and any non-finite x/y. */
export function wkbSummary(bytes: Uint8Array, row?: number): { type: string; bbox: BBox; nonFinite: boolean } {
  const g = decodeWkb(bytes, row);
  const { z } = readType(new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength), 1, bytes[0] === 1, row);
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
  return { type: z ? `${g.type} Z` : g.type, bbox, nonFinite };
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
