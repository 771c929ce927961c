import type { ObjectStore } from "../store/types.js";
import { artifactMonthPrefix } from "../manifest/layout.js";
import type { Partition } from "../task/task.js";

/** A (region, month) needs at least this many of the run's dates before one listing replaces their checks. */
const DENSE_MONTH = 4;

/**
 * Answers "is this artifact stored?" for a backfill on stores where one LIST page costs about what one HEAD
 * costs (S3: up to 1,000 keys per request, each request paid for and a round trip away). Each densely covered
 * (region, month) prefix is listed once, when first needed; sparse ones, and any key a listing lacks, are asked
 * about directly, so a "no" is never staler than a HEAD and a listing that fails only costs the shortcut.
 */
export class ArtifactIndex {
  private readonly dense = new Set<string>();
  private readonly listings = new Map<string, Promise<Set<string>>>();

  constructor(
    private readonly store: ObjectStore,
    partitions: readonly Partition[],
  ) {
    const counts = new Map<string, number>();
    for (const p of partitions) {
      const prefix = artifactMonthPrefix(p);
      counts.set(prefix, (counts.get(prefix) ?? 0) + 1);
    }
    for (const [prefix, n] of counts) if (n >= DENSE_MONTH) this.dense.add(prefix);
  }

  /** Only worth building where listing beats per-key checks and the run covers some month densely. */
  static for(store: ObjectStore, partitions: readonly Partition[]): ArtifactIndex | undefined {
    if (!store.prefersListing) return undefined;
    const index = new ArtifactIndex(store, partitions);
    return index.dense.size > 0 ? index : undefined;
  }

  async exists(partition: Partition, key: string): Promise<boolean> {
    const prefix = artifactMonthPrefix(partition);
    if (this.dense.has(prefix)) {
      let listing = this.listings.get(prefix);
      if (!listing) {
        listing = this.list(prefix);
        this.listings.set(prefix, listing);
      }
      const keys = await listing.catch(() => {
        this.listings.delete(prefix);
        return undefined;
      });
      if (keys?.has(key)) return true;
    }
    return this.store.exists(key);
  }

  private async list(prefix: string): Promise<Set<string>> {
    const keys = new Set<string>();
    for await (const e of this.store.list(prefix)) keys.add(e.key);
    return keys;
  }
}
