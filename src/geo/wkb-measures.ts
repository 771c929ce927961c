/**
 * WKB with measures (M) → the same geometry without them, as OGR's readers hand it on when a target keeps XY or XYZ
 * (docs/sources.md: M is a measure, not a position). A Triangle becomes the Polygon of its one ring. Other bytes
 * pass through untouched; a malformed value is left for the canonical rewrite to name (wkb-rewrite.ts).
 */
const TRIANGLE = 17;
const COLLECTIONS = new Set([4, 5, 6, 7]);

interface Header {
  le: boolean;
  base: number;
  z: boolean;
  m: boolean;
  body: number;
}

function header(v: DataView, at: number): Header {
  const le = v.getUint8(at) === 1;
  const raw = v.getUint32(at + 1, le);
  const ewkbZ = (raw & 0x80000000) !== 0;
  const ewkbM = (raw & 0x40000000) !== 0;
  const srid = (raw & 0x20000000) !== 0;
  const iso = raw & 0x0fffffff;
  const base = iso % 1000;
  const dims = Math.floor(iso / 1000);
  return {
    le,
    base,
    z: ewkbZ || dims === 1 || dims === 3,
    m: ewkbM || dims === 2 || dims === 3,
    body: at + 5 + (srid ? 4 : 0),
  };
}

/** Whether any part of the WKB at `at` carries M or is a Triangle (so it needs rewriting). */
export function needsMeasureFree(wkb: Uint8Array): boolean {
  if (wkb.length < 5) return false;
  const v = new DataView(wkb.buffer, wkb.byteOffset, wkb.byteLength);
  const h = header(v, 0);
  if (h.m || h.base === TRIANGLE) return true;
  if (!COLLECTIONS.has(h.base) || h.body + 4 > wkb.length) return false;
  // A collection's parts may say M where the collection does not (EWKB writers differ): look at the first.
  return h.body + 9 <= wkb.length && (header(v, h.body + 4).m || header(v, h.body + 4).base === TRIANGLE);
}

/** The WKB rewritten little-endian ISO, x y (z) only; Triangles as Polygons. */
export function measureFree(wkb: Uint8Array): Uint8Array {
  const v = new DataView(wkb.buffer, wkb.byteOffset, wkb.byteLength);
  const out: number[] = [];
  const scratch = new DataView(new ArrayBuffer(8));
  const u32 = (n: number) => {
    scratch.setUint32(0, n, true);
    for (let i = 0; i < 4; i++) out.push(scratch.getUint8(i));
  };
  const f64 = (n: number) => {
    scratch.setFloat64(0, n, true);
    for (let i = 0; i < 8; i++) out.push(scratch.getUint8(i));
  };
  let pos = 0;
  const geometry = (z0?: boolean): void => {
    const h = header(v, pos);
    pos = h.body;
    const z = z0 ?? h.z;
    const base = h.base === TRIANGLE ? 3 : h.base;
    out.push(1);
    u32(base + (z ? 1000 : 0));
    const point = () => {
      const x = v.getFloat64(pos, h.le);
      const y = v.getFloat64(pos + 8, h.le);
      const zz = h.z ? v.getFloat64(pos + 16, h.le) : 0;
      pos += 8 * (2 + (h.z ? 1 : 0) + (h.m ? 1 : 0));
      f64(x);
      f64(y);
      if (z) f64(zz);
    };
    const run = () => {
      const n = v.getUint32(pos, h.le);
      pos += 4;
      u32(n);
      for (let i = 0; i < n; i++) point();
    };
    if (base === 1) point();
    else if (base === 2) run();
    else if (base === 3) {
      const rings = v.getUint32(pos, h.le);
      pos += 4;
      u32(rings);
      for (let r = 0; r < rings; r++) run();
    } else if (COLLECTIONS.has(base)) {
      const k = v.getUint32(pos, h.le);
      pos += 4;
      u32(k);
      for (let i = 0; i < k; i++) geometry(z);
    } else throw new RangeError(`geometry type code ${h.base}`);
  };
  geometry();
  return Uint8Array.from(out);
}
