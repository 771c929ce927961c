/**
 * How many coordinates the read put on the world's edge (a float's rounding past ±180 / ±90, geo/wkb-rewrite.ts),
 * in the artifact's own footer, so a reader of the file alone sees that its coordinates were touched.
 */
export const SNAPPED_KEY = "georefresh:snapped_to_world_edge";

/** The count as footer metadata (none when nothing was snapped). */
export function snappedMetadata(count: number | undefined): Record<string, string> {
  return count ? { [SNAPPED_KEY]: String(count) } : {};
}
