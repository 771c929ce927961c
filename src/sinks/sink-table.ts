import { SinkSchemaError } from "./errors.js";

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

/** The table recording which partition version (sha256) each sink table has applied for each (region, logical date). */
export const STATE_TABLE = "georefresh_sink_state";

/** The SRID of a storage CRS: OGC:CRS84 is stored lon/lat, as EPSG:4326 is in PostGIS and GeoPackage. */
export function sridOf(crs: string): number {
  if (crs === "OGC:CRS84" || crs === "OGC:CRS84h") return 4326;
  const m = /^EPSG:(\d+)$/.exec(crs);
  if (!m) throw new SinkSchemaError(`the storage CRS ${crs} has no EPSG code: a sink table needs an SRID`);
  return Number(m[1]);
}
