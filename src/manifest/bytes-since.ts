import type { Manifest, ManifestEntry } from "./types.js";

/**
 * When a partition's current bytes were first promoted, and whether the current entry only rekeyed them (the same
 * sha256 as the version before it, under a new key: an input, pin or code version changed and no row did). A
 * rekey moves `promoted_at` but not the data, so readers asking "when did this change" want `changedAt`: the
 * promotion of the oldest version back to which no row changed (same bytes, or a changelog of no change).
 * History keeps HISTORY_LIMIT versions; past that, the oldest same-bytes version known is the answer.
 */
export function bytesSince(manifest: Manifest): { rekeyed: boolean; changedAt: string } | undefined {
  const current = manifest.current;
  if (!current) return undefined;
  const versions = [current, ...manifest.history];
  let changedAt = current.promoted_at;
  for (let i = 0; i < versions.length - 1; i++) {
    const [v, older] = [versions[i] as ManifestEntry, versions[i + 1] as ManifestEntry];
    if (v.sha256 !== older.sha256 && !noRowChanged(v, older)) break;
    changedAt = older.promoted_at;
  }
  return { rekeyed: manifest.history[0]?.sha256 === current.sha256, changedAt };
}

/**
 * New bytes, same rows: the version's changelog, computed against exactly the version before it, counts no key
 * added, removed or changed (a footer or writer change). Without a changelog (no natural key) new bytes are a change.
 */
function noRowChanged(v: ManifestEntry, older: ManifestEntry): boolean {
  const c = v.changes;
  if (!c?.against || c.against.sha256 !== older.sha256) return false;
  return c.counts.added + c.counts.removed + c.counts.geometry_changed + c.counts.attributes_changed === 0;
}
