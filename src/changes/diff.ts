import type { RowDigests } from "./row-digest.js";

export const CHANGE_KINDS = ["added", "removed", "geometry_changed", "attributes_changed"] as const;
export type ChangeKind = (typeof CHANGE_KINDS)[number];

export interface ChangeCounts {
  added: number;
  removed: number;
  geometry_changed: number;
  attributes_changed: number;
  unchanged: number;
}

/** One key that changed: its row on each side (absent where it does not exist) and what changed. */
export interface RowChange {
  before: number | undefined;
  after: number | undefined;
  geometry: boolean;
  attributes: boolean;
}

export interface DigestDiff {
  counts: ChangeCounts;
  changes: RowChange[];
}

/**
 * Row numbers ordered by key hash: an LSD radix sort in four 16-bit passes that carries each key's halves with
 * its row, so every pass reads front to back (a comparator sort was most of a change set's time).
 */
export function keyOrder(d: RowDigests): Uint32Array {
  const n = d.rows;
  const k = new Uint32Array(d.key.buffer, d.key.byteOffset, n * 2); // little-endian: [lo, hi] per row
  let rows = new Uint32Array(n);
  let lo = new Uint32Array(n);
  let hi = new Uint32Array(n);
  for (let i = 0; i < n; i++) {
    rows[i] = i;
    lo[i] = k[2 * i] as number;
    hi[i] = k[2 * i + 1] as number;
  }
  let [rows2, lo2, hi2] = [new Uint32Array(n), new Uint32Array(n), new Uint32Array(n)];
  const counts = new Uint32Array(65_537);
  for (let pass = 0; pass < 4; pass++) {
    const src = pass < 2 ? lo : hi;
    const shift = pass % 2 ? 16 : 0;
    counts.fill(0);
    for (let i = 0; i < n; i++) {
      const b = (((src[i] as number) >>> shift) & 0xffff) + 1;
      counts[b] = (counts[b] as number) + 1;
    }
    for (let b = 0; b < 65_536; b++) counts[b + 1] = (counts[b + 1] as number) + (counts[b] as number);
    for (let i = 0; i < n; i++) {
      const b = ((src[i] as number) >>> shift) & 0xffff;
      const at = counts[b] as number;
      counts[b] = at + 1;
      rows2[at] = rows[i] as number;
      lo2[at] = lo[i] as number;
      hi2[at] = hi[i] as number;
    }
    [rows, rows2] = [rows2, rows];
    [lo, lo2] = [lo2, lo];
    [hi, hi2] = [hi2, hi];
  }
  return rows;
}

/** Pairs of rows of one side whose key hashes are equal: duplicate keys (checked against the values by the caller). */
export function equalKeys(d: RowDigests, order = keyOrder(d)): [number, number][] {
  const pairs: [number, number][] = [];
  for (let i = 1; i < order.length; i++) {
    const [a, b] = [order[i - 1] as number, order[i] as number];
    if (d.key[a] === d.key[b]) pairs.push([a, b]);
  }
  return pairs;
}

/**
 * The change set between two versions of a partition, by a merge of both sides in key-hash order: every key is
 * added, removed, changed in geometry and/or attributes, or unchanged (counted only). Without a before side every
 * row is added. Keys are unique on both sides (read-back validation refuses duplicates).
 */
export function diffDigests(before: RowDigests | undefined, after: RowDigests): DigestDiff {
  const counts: ChangeCounts = { added: 0, removed: 0, geometry_changed: 0, attributes_changed: 0, unchanged: 0 };
  const changes: RowChange[] = [];
  const a = after;
  const ao = keyOrder(a);
  if (!before) {
    for (const row of ao) changes.push({ before: undefined, after: row, geometry: false, attributes: false });
    counts.added = a.rows;
    return { counts, changes };
  }
  const b = before;
  const bo = keyOrder(b);
  let i = 0;
  let j = 0;
  while (i < bo.length || j < ao.length) {
    const br = bo[i];
    const ar = ao[j];
    const bk = br === undefined ? undefined : (b.key[br] as bigint);
    const ak = ar === undefined ? undefined : (a.key[ar] as bigint);
    if (ak === undefined || (bk !== undefined && bk < ak)) {
      changes.push({ before: br, after: undefined, geometry: false, attributes: false });
      counts.removed++;
      i++;
    } else if (bk === undefined || ak < bk) {
      changes.push({ before: undefined, after: ar, geometry: false, attributes: false });
      counts.added++;
      j++;
    } else {
      const geometry = b.geometry[br as number] !== a.geometry[ar as number];
      const attributes = b.attributes[br as number] !== a.attributes[ar as number];
      if (geometry || attributes) changes.push({ before: br, after: ar, geometry, attributes });
      if (geometry) counts.geometry_changed++;
      if (attributes) counts.attributes_changed++;
      if (!geometry && !attributes) counts.unchanged++;
      i++;
      j++;
    }
  }
  return { counts, changes };
}
