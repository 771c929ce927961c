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

/** Row numbers ordered by key hash: typed-array work, no per-row objects. */
export function keyOrder(d: RowDigests): Uint32Array {
  const k = new Uint32Array(d.key.buffer, d.key.byteOffset, d.rows * 2); // little-endian: [lo, hi] per row
  const order = new Uint32Array(d.rows);
  for (let i = 0; i < d.rows; i++) order[i] = i;
  return order.sort(
    (a, b) => (k[2 * a + 1] as number) - (k[2 * b + 1] as number) || (k[2 * a] as number) - (k[2 * b] as number),
  );
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
