import { createHash } from "node:crypto";
import { SinkSchemaError } from "../errors.js";
import { SINK_COLUMNS, sridOf, STATE_TABLE } from "../sink-table.js";
import { quoteIdent } from "../sql-names.js";
import { sqlTypeOf } from "./types.js";

/** What a dataset's table in PostGIS holds, from its manifests: docs/sinks.md. */
export interface SinkTableSpec {
  schema: string;
  table: string;
  /** The natural key's columns (empty: rows are applied per partition). */
  key: string[];
  /** The artifact's columns as the manifest records them (name, Arrow type), geometry and covering included. */
  columns: { name: string; type: string }[];
  /** The storage CRS, e.g. "OGC:CRS84" or "EPSG:26913". */
  crs: string;
  /** Whether any geometry has Z. */
  hasZ: boolean;
}

/** The state table (one per schema, shared by the sink tables in it), made when missing. */
export function stateStatement(schema: string): string {
  return `CREATE TABLE IF NOT EXISTS ${quoteIdent(schema, "schema")}.${STATE_TABLE} (
  table_name text NOT NULL,
  dataset text NOT NULL,
  region text NOT NULL,
  logical_date date NOT NULL,
  sha256 text NOT NULL,
  sink_run text NOT NULL,
  PRIMARY KEY (table_name, region, logical_date)
)`;
}

/**
 * The statements that make a dataset's table and the state table when missing (idempotent): the key's and the
 * data's columns with their SQL types, a typed geometry column with a GiST index, provenance and retirement
 * columns, and a unique index on (region, key) for keyed datasets (on (region, valid_from) for the others).
 * `indexes` apart: a table made by the load that fills it gets them after the rows (one bulk build, not one
 * insertion per row).
 */
export function tableParts(spec: SinkTableSpec): { create: string[]; indexes: string[]; lookup: string[] } {
  const schema = quoteIdent(spec.schema, "schema");
  const table = `${schema}.${quoteIdent(spec.table, "table name")}`;
  const data = spec.columns.filter((c) => c.name !== "geometry" && c.name !== "bbox");
  for (const c of data)
    if ((SINK_COLUMNS as readonly string[]).includes(c.name))
      throw new SinkSchemaError(
        `column ${JSON.stringify(c.name)} of the data would clash with the sink's own column of that name (${SINK_COLUMNS.join(", ")}): rename it in the task`,
      );
  for (const k of spec.key)
    if (!data.some((c) => c.name === k))
      throw new SinkSchemaError(`the key column ${JSON.stringify(k)} is not in the data`);
  const columns = [
    `region text NOT NULL`,
    ...data.map(
      (c) =>
        `${quoteIdent(c.name, "column")} ${sqlTypeOf(c.type, c.name)}${spec.key.includes(c.name) ? " NOT NULL" : ""}`,
    ),
    `geom geometry(${spec.hasZ ? "GeometryZ" : "Geometry"}, ${sridOf(spec.crs)})`,
    `valid_from date NOT NULL`,
    `content_digest text NOT NULL`,
    `artifact_key text NOT NULL`,
    `artifact_sha256 text NOT NULL`,
    `sink_run text NOT NULL`,
    `retired_at date`,
    `retired_by text`,
  ];
  // Index names are per schema: a hash of the table's full name keeps two long names from sharing one.
  const tag = createHash("sha256").update(spec.table).digest("hex").slice(0, 8);
  const name = (suffix: string) => quoteIdent(`${spec.table.slice(0, 40)}_${tag}_${suffix}`, "index name");
  // The columns the loader finds rows by: the unique index's, or the partition's.
  const lookup = ["region", ...(spec.key.length ? spec.key.map((k) => quoteIdent(k, "key column")) : ["valid_from"])];
  const unique = spec.key.length
    ? `CREATE UNIQUE INDEX IF NOT EXISTS ${name("key")} ON ${table} (${lookup.join(", ")})`
    : `CREATE INDEX IF NOT EXISTS ${name("partition")} ON ${table} (${lookup.join(", ")})`;
  return {
    create: [
      `CREATE SCHEMA IF NOT EXISTS ${schema}`,
      `CREATE TABLE IF NOT EXISTS ${table} (\n  ${columns.join(",\n  ")}\n)`,
      stateStatement(spec.schema),
    ],
    indexes: [unique, `CREATE INDEX IF NOT EXISTS ${name("gist")} ON ${table} USING gist (geom)`],
    lookup,
  };
}

/** Every statement of tableParts, in order: the table, then its indexes. */
export function tableStatements(spec: SinkTableSpec): string[] {
  const { create, indexes } = tableParts(spec);
  return [...create, ...indexes];
}
