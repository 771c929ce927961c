import { WKB_CODE } from "./geometry.js";
import type { GeometryType, Position } from "./geometry.js";
import { PART_TYPE, readHeader, WkbError } from "./wkb.js";
import type { WkbColumn } from "./wkb.js";

/**
 * Copies one WKB value into canonical form — little-endian ISO WKB, no EWKB SRID — optionally transforming each
 * coordinate, and tracks the bbox of what it wrote. The output is never longer than the input (an SRID only
 * shrinks), so one buffer the size of the input column holds the whole result. Methods, not closures: hot path.
 */
/**
 * Longitudes and latitudes this little past ±180 / ±90 are the world's edge written with a float's rounding
 * (Natural Earth's 180.00000000000003): they are put on the edge, and counted. Farther out is an error validation
 * names.
 */
export const WORLD_EDGE_TOLERANCE = 1e-9;

function edge(v: number, bound: number): number {
  if (v > bound && v - bound <= WORLD_EDGE_TOLERANCE) return bound;
  if (v < -bound && -bound - v <= WORLD_EDGE_TOLERANCE) return -bound;
  return v;
}

class WkbRewriter {
  pos = 0;
  out = 0;
  row = 0;
  z = false;
  xmin = Infinity;
  ymin = Infinity;
  xmax = -Infinity;
  ymax = -Infinity;
  private readonly src: DataView;
  private readonly dst: DataView;
  private end = 0;

  /** Coordinates moved onto the world's edge (see WORLD_EDGE_TOLERANCE). */
  snapped = 0;

  constructor(
    input: Uint8Array,
    output: Uint8Array,
    private readonly transform: ((p: Position) => Position) | undefined,
    private readonly snap = false,
  ) {
    this.src = new DataView(input.buffer, input.byteOffset, input.byteLength);
    this.dst = new DataView(output.buffer, output.byteOffset, output.byteLength);
  }

  value(start: number, end: number, row: number): GeometryType {
    this.pos = start;
    this.end = end;
    this.row = row;
    this.xmin = this.ymin = Infinity;
    this.xmax = this.ymax = -Infinity;
    try {
      const type = this.geometry(0, undefined);
      if (this.pos !== end) throw new WkbError(`${end - this.pos} bytes left over after the geometry`, row, this.pos);
      return type;
    } catch (error) {
      // Offsets above are into the whole column; report them within the row's value, as decodeWkb does.
      if (!(error instanceof WkbError)) throw error;
      throw new WkbError(
        error.message.replace(/^row \d+: invalid WKB at byte \d+: /, ""),
        row,
        error.byteOffset - start,
      );
    }
  }

  private need(k: number, what: string): void {
    if (this.pos + k > this.end)
      throw new WkbError(`truncated: ${what} needs ${k} bytes, ${this.end - this.pos} left`, this.row, this.pos);
  }

  private count(le: boolean, what: string, minEach: number): number {
    this.need(4, what);
    const k = this.src.getUint32(this.pos, le);
    this.pos += 4;
    this.need(k * minEach, `${k} × ${what.replace(" count", "")}`);
    this.dst.setUint32(this.out, k, true);
    this.out += 4;
    return k;
  }

  private coord(le: boolean, empty: boolean): void {
    const { src, dst } = this;
    let x = src.getFloat64(this.pos, le);
    let y = src.getFloat64(this.pos + 8, le);
    let z = this.z ? src.getFloat64(this.pos + 16, le) : NaN;
    this.pos += this.z ? 24 : 16;
    if (empty)
      x = y = z = NaN; // POINT EMPTY, written as the canonical NaN
    else if (this.transform) {
      const p = this.transform(this.z ? [x, y, z] : [x, y]);
      x = p[0] as number;
      y = p[1] as number;
    }
    if (this.snap && (x > 180 || x < -180 || y > 90 || y < -90)) {
      const sx = edge(x, 180);
      const sy = edge(y, 90);
      if (sx !== x || sy !== y) this.snapped++;
      x = sx;
      y = sy;
    }
    dst.setFloat64(this.out, x, true);
    dst.setFloat64(this.out + 8, y, true);
    if (this.z) dst.setFloat64(this.out + 16, z, true);
    this.out += this.z ? 24 : 16;
    if (empty) return;
    if (x < this.xmin) this.xmin = x;
    if (x > this.xmax) this.xmax = x;
    if (y < this.ymin) this.ymin = y;
    if (y > this.ymax) this.ymax = y;
  }

  private run(le: boolean): void {
    const n = this.count(le, "point count", this.z ? 24 : 16);
    for (let i = 0; i < n; i++) this.coord(le, false);
  }

  private geometry(depth: number, expected: GeometryType | undefined): GeometryType {
    const at = this.pos;
    const { le, type, z, m, body } = readHeader(this.src, at, this.end, this.row, depth, expected);
    if (m)
      throw new WkbError(
        "M coordinates are not supported (georefresh stores XY or XYZ); drop M in compute",
        this.row,
        at,
      );
    if (depth === 0) this.z = z;
    else if (z !== this.z)
      throw new WkbError(
        `a part is ${z ? "XYZ" : "XY"} inside an ${this.z ? "XYZ" : "XY"} geometry; use one dimension per row`,
        this.row,
        at,
      );
    this.pos = body;
    this.dst.setUint8(this.out, 1);
    this.dst.setUint32(this.out + 1, WKB_CODE[type] + (z ? 1000 : 0), true);
    this.out += 5;
    if (type === "Point") {
      this.need(z ? 24 : 16, "coordinate");
      const empty =
        Number.isNaN(this.src.getFloat64(this.pos, le)) && Number.isNaN(this.src.getFloat64(this.pos + 8, le));
      this.coord(le, empty);
    } else if (type === "LineString") {
      this.run(le);
    } else if (type === "Polygon") {
      const rings = this.count(le, "ring count", 4);
      for (let r = 0; r < rings; r++) this.run(le);
    } else {
      const k = this.count(le, type === "GeometryCollection" ? "geometry count" : "part count", 5);
      for (let i = 0; i < k; i++) this.geometry(depth + 1, PART_TYPE[type]);
    }
    return type;
  }
}

/**
 * A WKB column (as a task or another tool wrote it: either byte order, ISO or EWKB flags, SRIDs) → the same
 * geometries as canonical little-endian ISO WKB, the bytes encodeWkbColumn would write for them, with every
 * coordinate passed through `transform` when one is given (reprojection without building geometry objects), plus
 * per-row bboxes and the set of types. Malformed values throw a WkbError naming the row and byte offset.
 */
export function rewriteWkbColumn(
  data: Uint8Array,
  offsets: Int32Array,
  transform?: (p: Position) => Position,
  snap = false,
): WkbColumn & { snapped: number } {
  return rewriteWkbBatches([{ data, offsets }], transform, () => undefined, false, snap);
}

/**
 * rewriteWkbColumn over the WKB columns of several batches, into one output buffer (no joined copy of the input
 * first). `done(i)` runs once batch i has been rewritten, so the caller can let its input go. Rows are numbered
 * across batches. With `shared`, the WKB, its offsets and the bboxes are written into shared memory, which the
 * writer's encode workers then read in place instead of being sent copies (encode-groups.ts).
 */
export function rewriteWkbBatches(
  batches: readonly { data: Uint8Array; offsets: Int32Array }[],
  transform: ((p: Position) => Position) | undefined,
  done: (i: number) => void,
  shared = false,
  snap = false,
): WkbColumn & { snapped: number } {
  // A batch of no rows may carry no offsets at all (a feed of zero features).
  const filled = batches.filter((b) => b.offsets.length > 1);
  const rows = filled.reduce((n, b) => n + b.offsets.length - 1, 0);
  const size = filled.reduce((n, b) => n + (b.offsets[b.offsets.length - 1] as number) - (b.offsets[0] as number), 0);
  const memory = (bytes: number) => (shared ? new SharedArrayBuffer(bytes) : new ArrayBuffer(bytes));
  const out = new Uint8Array(memory(size));
  const outOffsets = new Int32Array(memory(4 * (rows + 1)));
  const bboxes = new Float64Array(memory(32 * rows));
  const types = new Set<string>();
  let row = 0;
  let at = 0;
  let snapped = 0;
  for (const [k, batch] of batches.entries()) {
    const w = new WkbRewriter(batch.data, out, transform, snap);
    w.out = at;
    for (let i = 0; i < batch.offsets.length - 1; i++, row++) {
      const type = w.value(batch.offsets[i] as number, batch.offsets[i + 1] as number, row);
      outOffsets[row + 1] = w.out;
      types.add(w.z ? `${type} Z` : type);
      const empty = !(w.xmin <= w.xmax);
      bboxes[4 * row] = empty ? NaN : w.xmin;
      bboxes[4 * row + 1] = empty ? NaN : w.ymin;
      bboxes[4 * row + 2] = empty ? NaN : w.xmax;
      bboxes[4 * row + 3] = empty ? NaN : w.ymax;
    }
    at = w.out;
    snapped += w.snapped;
    done(k);
  }
  return { data: out.subarray(0, at), offsets: outOffsets, bboxes, types, snapped };
}
