/**
 * Positions read through PROJ's ballpark shift (a source's `"datumShift": "ballpark"`: lon/lat kept across datums,
 * tens to hundreds of metres off), in the artifact's own footer, so a reader of the file alone sees that its
 * coordinates are only as good as the ballpark.
 */
export const BALLPARK_KEY = "georefresh:datum_shift";

export interface Ballpark {
  positions: number;
  /** The datums the ballpark stood in for a transformation of, as PROJ names them. */
  datums: string[];
}

/** The footer's record (none when no position took the ballpark): JSON, sorted, so the bytes are the same each run. */
export function ballparkMetadata(ballpark: Ballpark | undefined): Record<string, string> {
  if (!ballpark?.positions) return {};
  return {
    [BALLPARK_KEY]: JSON.stringify({
      method: "ballpark",
      positions: ballpark.positions,
      datums: [...ballpark.datums].sort(),
      note: "no transformation of these datums to WGS 84 runs without a grid file; lon/lat were kept across datums (errors of tens to hundreds of metres)",
    }),
  };
}
