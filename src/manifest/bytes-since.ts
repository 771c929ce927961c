import type { Manifest } from "./types.js";

/**
 * When a partition's current bytes were first promoted, and whether the current entry only rekeyed them (the same
 * sha256 as the version before it, under a new key: an input, pin or code version changed and no row did). A
 * rekey moves `promoted_at` but not the data, so readers asking "when did this change" want `changedAt`.
 * History keeps HISTORY_LIMIT versions; past that, the oldest same-bytes version known is the answer.
 */
export function bytesSince(manifest: Manifest): { rekeyed: boolean; changedAt: string } | undefined {
  const current = manifest.current;
  if (!current) return undefined;
  let changedAt = current.promoted_at;
  for (const earlier of manifest.history) {
    if (earlier.sha256 !== current.sha256) break;
    changedAt = earlier.promoted_at;
  }
  return { rekeyed: manifest.history[0]?.sha256 === current.sha256, changedAt };
}
