import { SinkRefusedError, SinkSchemaError } from "./errors.js";

/** The columns every sink table has beside the data's: an attribute may not take their names. */
export const SINK_COLUMNS = [
  "region",
  "geom",
  "valid_from",
  "content_digest",
  "artifact_key",
  "artifact_sha256",
  "sink_run",
  "retired_at",
  "retired_by",
] as const;

/** Where each row came from, written with it: the logical date, the artifact and its sha256, the sink run. */
export const PROVENANCE = ["valid_from", "artifact_key", "artifact_sha256", "sink_run"] as const;

/**
 * A table of that name another program made (no region and provenance columns, which every sink table has since
 * the first): refused before anything is compared, saying so and how to choose another, rather than naming a
 * column it lacks.
 */
export function foreignTable(table: string, columns: ReadonlySet<string>): SinkRefusedError | undefined {
  const lacking = ["region", ...PROVENANCE].filter((c) => !columns.has(c));
  if (lacking.length === 0) return undefined;
  return new SinkRefusedError(
    `${table} exists but is not a georefresh sink table (it has no ${lacking.join(", ")}: another program made it); nothing was changed: sink into another table (--table NAME, or the config's "sink": { "table": … }), or drop it if it is yours to drop`,
  );
}

/** The table recording which partition version (sha256) each sink table has applied for each (region, logical date). */
export const STATE_TABLE = "georefresh_sink_state";

/** The SRID of a storage CRS: OGC:CRS84 is stored lon/lat, as EPSG:4326 is in PostGIS and GeoPackage. */
export function sridOf(crs: string): number {
  if (crs === "OGC:CRS84" || crs === "OGC:CRS84h") return 4326;
  const m = /^EPSG:(\d+)$/.exec(crs);
  if (!m) throw new SinkSchemaError(`the storage CRS ${crs} has no EPSG code: a sink table needs an SRID`);
  return Number(m[1]);
}
