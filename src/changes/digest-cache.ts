import type { RowDigests } from "./row-digest.js";

/**
 * The digests of the versions this process verified last, by sha256 and key: in a backfill a region's next
 * logical date compares with the version just promoted, and finds its digests here instead of reading and hashing
 * it again. Digests are a function of the bytes, so a hit is exact. Bounded by rows (2M: about 50 MiB with a few
 * attributes); the oldest go first.
 */
export class DigestCache {
  private readonly entries = new Map<string, { digests: RowDigests; geometry: string }>();
  private rows = 0;

  constructor(private readonly maxRows = 2_000_000) {}

  get(sha256: string, key: readonly string[]): { digests: RowDigests; geometry: string } | undefined {
    const id = `${sha256}:${JSON.stringify(key)}`;
    const hit = this.entries.get(id);
    if (hit) {
      this.entries.delete(id); // most recently used last
      this.entries.set(id, hit);
    }
    return hit;
  }

  put(sha256: string, key: readonly string[], digests: RowDigests, geometry: string): void {
    const id = `${sha256}:${JSON.stringify(key)}`;
    if (this.entries.has(id) || digests.rows > this.maxRows) return;
    this.entries.set(id, { digests, geometry });
    this.rows += digests.rows;
    for (const [old, e] of this.entries) {
      if (this.rows <= this.maxRows) break;
      this.entries.delete(old);
      this.rows -= e.digests.rows;
    }
  }
}

/** This process's cache (each worker thread or process has its own). */
export const recentDigests = new DigestCache();
