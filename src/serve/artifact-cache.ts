/**
 * What the server made of an artifact (its decoded rows, its tile index), kept by the artifact's sha256: an
 * artifact never changes, so nothing here is ever stale, and a page or tile of a warm partition reads no byte.
 * Least recently used first out once the artifacts held pass `budget` bytes (their stored size: what was read
 * and verified), so the server's memory stays bounded however many partitions clients ask for.
 */
export class ArtifactCache {
  private readonly held = new Map<string, { bytes: number; value: Promise<unknown> }>();
  private total = 0;

  constructor(readonly budget: number) {}

  /** `kind`'s value for the artifact, made once by `make` (a failure is not kept: the next request tries again). */
  get<T>(kind: string, entry: { sha256: string; bytes: number }, make: () => Promise<T>): Promise<T> {
    const key = `${kind}:${entry.sha256}`;
    const hit = this.held.get(key);
    if (hit) {
      this.held.delete(key); // re-inserted: a Map iterates in insertion order, oldest first
      this.held.set(key, hit);
      return hit.value as Promise<T>;
    }
    const value = make();
    if (entry.bytes > this.budget) return value; // larger than the whole budget: used once, not kept
    this.held.set(key, { bytes: entry.bytes, value });
    this.total += entry.bytes;
    value.catch(() => this.drop(key));
    for (const [k, v] of this.held) {
      if (this.total <= this.budget) break;
      if (k !== key) this.drop(k, v.bytes);
    }
    return value;
  }

  private drop(key: string, bytes = this.held.get(key)?.bytes): void {
    if (bytes !== undefined && this.held.delete(key)) this.total -= bytes;
  }
}
