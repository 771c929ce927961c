/**
 * Rows are written in Hilbert order of their bbox centres so that row-group statistics (and the bbox covering
 * column) let readers skip most of a file for a spatial filter. The order only depends on the data, so the same
 * rows always land in the same order.
 */
const ORDER = 16;
const SIDE = 1 << ORDER;

/** Hilbert curve index of cell (x, y) on a 2^16 × 2^16 grid. */
export function hilbertIndex(x: number, y: number): number {
  let d = 0;
  for (let s = SIDE >>> 1; s > 0; s >>>= 1) {
    const rx = (x & s) > 0 ? 1 : 0;
    const ry = (y & s) > 0 ? 1 : 0;
    d += s * s * ((3 * rx) ^ ry);
    if (ry === 0) {
      if (rx === 1) {
        x = s - 1 - x;
        y = s - 1 - y;
      }
      [x, y] = [y, x];
    }
  }
  return d;
}

/**
 * The permutation that sorts rows by Hilbert index of bbox centre (rows without extent last), ties broken by
 * `tieBreak` (the id column) and then by original position.
 */
export function hilbertOrder(bboxes: Float64Array, tieBreak?: (a: number, b: number) => number): Uint32Array {
  const n = bboxes.length / 4;
  let [minX, minY, maxX, maxY] = [Infinity, Infinity, -Infinity, -Infinity];
  for (let i = 0; i < n; i++) {
    const x = (bboxes[4 * i] as number) + (bboxes[4 * i + 2] as number);
    const y = (bboxes[4 * i + 1] as number) + (bboxes[4 * i + 3] as number);
    if (x < minX) minX = x;
    if (x > maxX) maxX = x;
    if (y < minY) minY = y;
    if (y > maxY) maxY = y;
  }
  const sx = maxX > minX ? (SIDE - 1) / (maxX - minX) : 0;
  const sy = maxY > minY ? (SIDE - 1) / (maxY - minY) : 0;
  const keys = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const x = (bboxes[4 * i] as number) + (bboxes[4 * i + 2] as number);
    const y = (bboxes[4 * i + 1] as number) + (bboxes[4 * i + 3] as number);
    keys[i] = Number.isNaN(x) || Number.isNaN(y) ? Number.MAX_SAFE_INTEGER : hilbertIndex(Math.floor((x - minX) * sx), Math.floor((y - minY) * sy));
  }
  const order = Uint32Array.from({ length: n }, (_, i) => i);
  order.sort((a, b) => (keys[a] as number) - (keys[b] as number) || (tieBreak ? tieBreak(a, b) : 0) || a - b);
  return order;
}
