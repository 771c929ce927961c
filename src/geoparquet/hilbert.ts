/**
 * Rows are written in Hilbert order of their bbox centres so that row-group statistics (and the bbox covering
 * column) let readers skip most of a file for a spatial filter. The order only depends on the data, so the same
 * rows always land in the same order.
 */
const SIDE = 1 << 16;

function interleave(v: number): number {
  v = (v | (v << 8)) & 0x00ff00ff;
  v = (v | (v << 4)) & 0x0f0f0f0f;
  v = (v | (v << 2)) & 0x33333333;
  return (v | (v << 1)) & 0x55555555;
}

/**
 * Hilbert curve index of cell (x, y) on a 2^16 × 2^16 grid, computed without branches (the prefix-scan method
 * published by rawrunprotected, also used by FlatGeobuf): a bit-by-bit loop mispredicts on random data and was
 * 4× slower here.
 */
export function hilbertIndex(x: number, y: number): number {
  let a = x ^ y;
  let b = 0xffff ^ a;
  let c = 0xffff ^ (x | y);
  let d = x & (y ^ 0xffff);
  let A = a | (b >> 1);
  let B = (a >> 1) ^ a;
  let C = (c >> 1) ^ (b & (d >> 1)) ^ c;
  let D = (a & (c >> 1)) ^ (d >> 1) ^ d;

  a = A;
  b = B;
  c = C;
  d = D;
  A = (a & (a >> 2)) ^ (b & (b >> 2));
  B = (a & (b >> 2)) ^ (b & ((a ^ b) >> 2));
  C ^= (a & (c >> 2)) ^ (b & (d >> 2));
  D ^= (b & (c >> 2)) ^ ((a ^ b) & (d >> 2));

  a = A;
  b = B;
  c = C;
  d = D;
  A = (a & (a >> 4)) ^ (b & (b >> 4));
  B = (a & (b >> 4)) ^ (b & ((a ^ b) >> 4));
  C ^= (a & (c >> 4)) ^ (b & (d >> 4));
  D ^= (b & (c >> 4)) ^ ((a ^ b) & (d >> 4));

  a = A;
  b = B;
  c = C;
  d = D;
  C ^= (a & (c >> 8)) ^ (b & (d >> 8));
  D ^= (b & (c >> 8)) ^ ((a ^ b) & (d >> 8));

  a = C ^ (C >> 1);
  b = D ^ (D >> 1);
  const i0 = x ^ y;
  const i1 = b | (0xffff ^ (i0 | a));
  return ((interleave(i1) << 1) | interleave(i0)) >>> 0;
}

/**
 * Stable LSD radix sort of row numbers by uint32 key, in place: two 16-bit passes that carry each key with its
 * row, so every pass reads both arrays front to back (looking keys up by row instead was a cache miss per row).
 * Returns the keys in sorted order.
 */
function radixSortInPlace(rowKeys: Uint32Array, rows: Uint32Array): Uint32Array {
  const n = rows.length;
  let keys = new Uint32Array(n);
  for (let i = 0; i < n; i++) keys[i] = rowKeys[rows[i] as number] as number; // rows ascend here: sequential
  let src: Uint32Array = rows;
  let dst: Uint32Array = new Uint32Array(n);
  let keysDst = new Uint32Array(n);
  const counts = new Uint32Array(65_537);
  for (const shift of [0, 16]) {
    counts.fill(0);
    for (let i = 0; i < n; i++) {
      const bucket = (((keys[i] as number) >>> shift) & 0xffff) + 1;
      counts[bucket] = (counts[bucket] as number) + 1;
    }
    for (let b = 0; b < 65_536; b++) counts[b + 1] = (counts[b + 1] as number) + (counts[b] as number);
    for (let i = 0; i < n; i++) {
      const key = keys[i] as number;
      const bucket = (key >>> shift) & 0xffff;
      const at = counts[bucket] as number;
      dst[at] = src[i] as number;
      keysDst[at] = key;
      counts[bucket] = at + 1;
    }
    [src, dst] = [dst, src];
    [keys, keysDst] = [keysDst, keys];
  }
  return keys;
}

/**
 * The permutation that sorts rows by Hilbert index of bbox centre (rows without extent last), ties broken by
 * `tieBreak` (the id column) and then by original position. A radix sort orders the keys; only runs of equal
 * keys meet the tie-break comparator.
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
  // Rows with a location fill `order` from the front, empty ones from the back (then put back in row order).
  const keys = new Uint32Array(n);
  const order = new Uint32Array(n);
  let located = 0;
  let back = n;
  for (let i = 0; i < n; i++) {
    const x = (bboxes[4 * i] as number) + (bboxes[4 * i + 2] as number);
    const y = (bboxes[4 * i + 1] as number) + (bboxes[4 * i + 3] as number);
    if (Number.isNaN(x) || Number.isNaN(y)) order[--back] = i;
    else {
      keys[i] = hilbertIndex(Math.floor((x - minX) * sx), Math.floor((y - minY) * sy));
      order[located++] = i;
    }
  }
  order.subarray(located).reverse();
  const sorted = radixSortInPlace(keys, order.subarray(0, located));
  if (tieBreak) {
    // Re-sort each run of equal keys, and the run of empties, by the id, so input row order cannot matter.
    for (let start = 0; start < located;) {
      const key = sorted[start];
      let end = start + 1;
      while (end < located && sorted[end] === key) end++;
      if (end - start > 1) order.subarray(start, end).sort((a, b) => tieBreak(a, b) || a - b);
      start = end;
    }
    if (n - located > 1) order.subarray(located).sort((a, b) => tieBreak(a, b) || a - b);
  }
  return order;
}
