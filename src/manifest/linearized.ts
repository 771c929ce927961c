/**
 * How many features were curves the read made straight segments, as OGR makes them (geo/curves.ts), in the
 * artifact's own footer: GeoParquet has no arcs, so a reader of the file alone sees that its lines were arcs.
 */
export const LINEARIZED_KEY = "georefresh:linearized_curves";

/** The count as footer metadata (none when no feature was a curve). */
export function linearizedMetadata(count: number | undefined): Record<string, string> {
  return count ? { [LINEARIZED_KEY]: String(count) } : {};
}
