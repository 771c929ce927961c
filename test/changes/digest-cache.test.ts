/** The in-process cache of recent digests: exact hits by sha256 and key, bounded by rows, oldest out first. */
import { describe, expect, it } from "vitest";
import { DigestCache } from "../../src/changes/digest-cache.js";
import type { RowDigests } from "../../src/changes/row-digest.js";

const digests = (rows: number): RowDigests => ({
  rows,
  key: new BigUint64Array(rows),
  attributes: new BigUint64Array(rows),
  geometry: new BigUint64Array(rows),
  attributeNames: [],
  columnHashes: new Uint32Array(0),
  keyBytes: new Uint8Array(0),
  keyOffsets: new Int32Array(rows + 1),
  keyTypes: [],
  nullKeyRows: [],
  nullKeys: 0,
});

describe("DigestCache", () => {
  it("finds a version by sha256 and key only, keeps at most maxRows, and drops the least recently used", () => {
    const cache = new DigestCache(100);
    const [a, b, c] = [digests(40), digests(40), digests(40)];
    cache.put("a", ["id"], a, "geometry");
    cache.put("b", ["id"], b, "geometry");
    expect(cache.get("a", ["id"])?.digests).toBe(a);
    expect(cache.get("a", ["other"])).toBeUndefined(); // another key: other digests
    cache.put("c", ["id"], c, "geometry"); // 120 rows > 100: b (least recently used) goes
    expect(cache.get("b", ["id"])).toBeUndefined();
    expect(cache.get("a", ["id"])?.digests).toBe(a);
    expect(cache.get("c", ["id"])?.digests).toBe(c);
    cache.put("big", ["id"], digests(101), "geometry"); // larger than the bound: never held
    expect(cache.get("big", ["id"])).toBeUndefined();
    expect(cache.get("a", ["id"])).toBeDefined();
  });
});
