/** The benchmarks' synthetic keyed parcels, their WKB written straight into one buffer (no objects per row). */
import { Binary, Float64, makeData, makeVector, Table, Utf8, vectorFromArray } from "apache-arrow";

const ZONES = ["R1", "R2", "C1", "AG", "MU"];
const SQUARE_BYTES = 1 + 4 + 4 + 4 + 16 * 5;

/** A square of `side` degrees at (x, y) as little-endian WKB at `at`. */
function writeSquare(view: DataView, at: number, x: number, y: number, side = 0.0008): void {
  view.setUint8(at, 1);
  view.setUint32(at + 1, 3, true);
  view.setUint32(at + 5, 1, true);
  view.setUint32(at + 9, 5, true);
  let p = at + 13;
  for (const [px, py] of [
    [x, y],
    [x + side, y],
    [x + side, y + side],
    [x, y + side],
    [x, y],
  ]) {
    view.setFloat64(p, px as number, true);
    view.setFloat64(p + 8, py as number, true);
    p += 16;
  }
}

/**
 * n parcels (id, zoning, value, geometry: squares or points on a grid); version 1 changes 1 % of them: 0.5 %
 * moved, 0.5 % with an edited zoning. `shift` moves the grid east by whole degrees (one per region).
 */
export function syntheticParcels(
  n: number,
  version: 0 | 1,
  options: { kind?: "polygon" | "point"; idPrefix?: string; shift?: number } = {},
): Table {
  const kind = options.kind ?? "polygon";
  const size = kind === "point" ? 21 : SQUARE_BYTES;
  const wkb = new Uint8Array(n * size);
  const view = new DataView(wkb.buffer);
  const offsets = new Int32Array(n + 1);
  const ids: string[] = new Array(n);
  const zoning: string[] = new Array(n);
  const value = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const moved = version === 1 && i % 200 === 7;
    const edited = version === 1 && i % 200 === 111;
    const x = -105 + (options.shift ?? 0) + (i % 1000) * 0.001 + (moved ? 0.0001 : 0);
    const y = 39 + Math.floor(i / 1000) * 0.001;
    const at = i * size;
    offsets[i] = at;
    if (kind === "point") {
      view.setUint8(at, 1);
      view.setUint32(at + 1, 1, true);
      view.setFloat64(at + 5, x, true);
      view.setFloat64(at + 13, y, true);
    } else writeSquare(view, at, x, y);
    ids[i] = `${options.idPrefix ?? "P-"}${String(i).padStart(8, "0")}`;
    zoning[i] = edited ? "MU-X" : (ZONES[i % ZONES.length] as string);
    value[i] = (i % 977) * 1000.5;
  }
  offsets[n] = n * size;
  return new Table({
    parcel_id: vectorFromArray(ids, new Utf8()),
    zoning: vectorFromArray(zoning, new Utf8()),
    value: makeVector(makeData({ type: new Float64(), length: n, data: value })),
    geometry: makeVector(makeData({ type: new Binary(), length: n, valueOffsets: offsets, data: wkb })),
  });
}
