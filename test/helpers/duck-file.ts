import type { Geometry } from "../../src/geo/geometry.js";
import { encodeWkb } from "../../src/geo/wkb.js";
import { duckdb } from "./duckdb.js";

export interface DuckFileOptions {
  column?: string;
  /** SQL for the geometry value, with $WKB standing for the hex string (default: from_hex($WKB)). */
  columnSql?: string;
  /** More select items, e.g. ", {...} AS bbox". */
  extra?: string;
  compression?: string;
}

const hex = (g: Geometry) => Buffer.from(encodeWkb(g)).toString("hex");

/**
 * Writes GeoParquet with DuckDB, an independent writer (no spatial extension: WKB as BLOB, the `geo` footer
 * given as KV_METADATA), so a test controls exactly which rule a file breaks.
 */
export async function writeDuckFile(
  path: string,
  geoms: Geometry[],
  geo: unknown,
  opts: DuckFileOptions = {},
): Promise<string> {
  const column = opts.column ?? "geom";
  const values = geoms
    .map(
      (g, i) => `(${i}, ${opts.columnSql ? opts.columnSql.replace("$WKB", `'${hex(g)}'`) : `from_hex('${hex(g)}')`})`,
    )
    .join(", ");
  const kv = geo === undefined ? "" : `, KV_METADATA {geo: '${JSON.stringify(geo).replaceAll("'", "''")}'}`;
  const conn = await duckdb();
  await conn.run(
    `COPY (SELECT * ${opts.extra ?? ""} FROM (VALUES ${values}) t(id, ${column})) TO '${path}' (FORMAT parquet, COMPRESSION ${opts.compression ?? "zstd"}${kv})`,
  );
  return path;
}

export const geoFor = (column: string, types: string[], extra: Record<string, unknown> = {}, version = "1.1.0") => ({
  version,
  primary_column: column,
  columns: { [column]: { encoding: "WKB", geometry_types: types, ...extra } },
});
