import type { GeometryType } from "./geometry.js";
import { PART_TYPE, readHeader, WkbError } from "./wkb.js";

/** Receives the coordinates of a WKB value in order; rings are announced so area can tell shells from holes. */
export interface WkbVisitor {
  coord(x: number, y: number, z: number): void;
  ringStart?(hole: boolean): void;
  ringEnd?(): void;
}

/** Methods rather than per-call closures: this runs once per row on hot paths. */
class WkbScanner {
  pos = 0;
  private readonly view: DataView;
  private readonly end: number;

  constructor(
    bytes: Uint8Array,
    private readonly visitor: WkbVisitor,
    private readonly row: number | undefined,
  ) {
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    this.end = bytes.byteLength;
  }

  need(k: number, what: string): void {
    if (this.pos + k > this.end)
      throw new WkbError(`truncated: ${what} needs ${k} bytes, ${this.end - this.pos} left`, this.row, this.pos);
  }

  count(le: boolean, what: string, minEach: number): number {
    this.need(4, what);
    const k = this.view.getUint32(this.pos, le);
    this.pos += 4;
    this.need(k * minEach, `${k} × ${what.replace(" count", "")}`);
    return k;
  }

  points(k: number, le: boolean, z: boolean, stride: number): void {
    const { view, visitor } = this;
    let pos = this.pos;
    for (let i = 0; i < k; i++, pos += stride)
      visitor.coord(
        view.getFloat64(pos, le),
        view.getFloat64(pos + 8, le),
        z ? view.getFloat64(pos + 16, le) : Number.NaN,
      );
    this.pos = pos;
  }

  geometry(depth: number, expected?: GeometryType): { type: GeometryType; z: boolean } {
    const { le, type, z, m, body } = readHeader(this.view, this.pos, this.end, this.row, depth, expected);
    this.pos = body;
    const stride = 16 + (z ? 8 : 0) + (m ? 8 : 0); // M values are stepped over

    if (type === "Point") {
      this.need(stride, "coordinate");
      const x = this.view.getFloat64(this.pos, le);
      const y = this.view.getFloat64(this.pos + 8, le);
      if (!(Number.isNaN(x) && Number.isNaN(y)))
        this.points(1, le, z, stride); // NaN, NaN is POINT EMPTY
      else this.pos += stride;
    } else if (type === "LineString") {
      this.points(this.count(le, "point count", stride), le, z, stride);
    } else if (type === "Polygon") {
      const rings = this.count(le, "ring count", 4);
      for (let r = 0; r < rings; r++) {
        const n = this.count(le, "point count", stride);
        this.visitor.ringStart?.(r > 0);
        this.points(n, le, z, stride);
        this.visitor.ringEnd?.();
      }
    } else {
      const k = this.count(le, type === "GeometryCollection" ? "geometry count" : "part count", 5);
      for (let i = 0; i < k; i++) this.geometry(depth + 1, PART_TYPE[type]);
    }
    return { type, z };
  }
}

/**
 * Walks one WKB value without building any objects (checks that only need coordinates: finiteness, CRS domain,
 * bbox, area), with the same structural checks and errors as decodeWkb. Returns the top-level type.
 */
export function scanWkb(bytes: Uint8Array, visitor: WkbVisitor, row?: number): { type: GeometryType; z: boolean } {
  const scanner = new WkbScanner(bytes, visitor, row);
  const top = scanner.geometry(0);
  if (scanner.pos !== bytes.byteLength)
    throw new WkbError(`${bytes.byteLength - scanner.pos} bytes left over after the geometry`, row, scanner.pos);
  return top;
}
