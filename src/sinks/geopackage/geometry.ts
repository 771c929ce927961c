import { scanWkb } from "../../geo/wkb-scan.js";
import type { WkbVisitor } from "../../geo/wkb-scan.js";

/**
 * GeoPackage binary geometry (OGC GeoPackage 1.3, clause 2.1.3): the "GP" header with version, flags, SRS id and
 * an envelope, then the WKB as it is (ISO WKB, Z included). Points carry no envelope (their one coordinate is it,
 * as GDAL writes them); an empty geometry sets the empty flag and carries none.
 */

const EMPTY_FLAG = 0x10;
const LITTLE_ENDIAN = 0x01;

class Envelope implements WkbVisitor {
  minx = Infinity;
  maxx = -Infinity;
  miny = Infinity;
  maxy = -Infinity;
  minz = Infinity;
  maxz = -Infinity;
  n = 0;
  coord(x: number, y: number, z: number): void {
    if (Number.isNaN(x) || Number.isNaN(y)) return; // an empty point is written as NaN, NaN
    this.n++;
    if (x < this.minx) this.minx = x;
    if (x > this.maxx) this.maxx = x;
    if (y < this.miny) this.miny = y;
    if (y > this.maxy) this.maxy = y;
    if (z < this.minz) this.minz = z;
    if (z > this.maxz) this.maxz = z;
  }
}

/** The GeoPackage blob of one WKB value. */
export function gpkgGeometry(wkb: Uint8Array, srsId: number): Buffer {
  const env = new Envelope();
  const { type, z } = scanWkb(wkb, env);
  const empty = env.n === 0;
  // Envelope indicator: 0 none, 1 [minx, maxx, miny, maxy], 2 adds [minz, maxz].
  const indicator = empty || type === "Point" ? 0 : z ? 2 : 1;
  const envBytes = indicator === 0 ? 0 : indicator === 1 ? 32 : 48;
  const out = Buffer.allocUnsafe(8 + envBytes + wkb.byteLength);
  out[0] = 0x47; // G
  out[1] = 0x50; // P
  out[2] = 0; // version 1
  out[3] = (indicator << 1) | LITTLE_ENDIAN | (empty ? EMPTY_FLAG : 0);
  out.writeInt32LE(srsId, 4);
  if (indicator > 0) {
    out.writeDoubleLE(env.minx, 8);
    out.writeDoubleLE(env.maxx, 16);
    out.writeDoubleLE(env.miny, 24);
    out.writeDoubleLE(env.maxy, 32);
    if (indicator === 2) {
      out.writeDoubleLE(env.minz, 40);
      out.writeDoubleLE(env.maxz, 48);
    }
  }
  out.set(wkb, 8 + envBytes);
  return out;
}

/** The envelope [minx, maxx, miny, maxy] of a GeoPackage blob (null: empty), from its header or its point. */
export function gpkgEnvelope(blob: Uint8Array): [number, number, number, number] | null {
  if (blob.length < 8 || blob[0] !== 0x47 || blob[1] !== 0x50) return null;
  const flags = blob[3] as number;
  if (flags & EMPTY_FLAG) return null;
  const view = new DataView(blob.buffer, blob.byteOffset, blob.byteLength);
  const le = (flags & LITTLE_ENDIAN) === 1;
  const indicator = (flags >> 1) & 0x07;
  if (indicator > 0)
    return [view.getFloat64(8, le), view.getFloat64(16, le), view.getFloat64(24, le), view.getFloat64(32, le)];
  const wkb = blob.subarray(8);
  const env = new Envelope();
  scanWkb(wkb, env);
  return env.n === 0 ? null : [env.minx, env.maxx, env.miny, env.maxy];
}
