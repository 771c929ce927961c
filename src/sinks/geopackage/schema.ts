/**
 * The GeoPackage 1.3 system tables a feature GeoPackage needs (http://www.geopackage.org/spec130/, clause 1.1 and
 * 2.1, annex C), the spatial reference systems the sink writes, and the R-tree extension (annex F.3).
 */

import { quoteName } from "../sql-names.js";

/** "GPKG" (clause 1.1.1.1.1), and 1.3.0 as user_version 10300. */
export const GPKG_APPLICATION_ID = 0x47504b47;
export const GPKG_USER_VERSION = 10300;

const WGS84_WKT =
  'GEOGCS["WGS 84",DATUM["WGS_1984",SPHEROID["WGS 84",6378137,298.257223563,AUTHORITY["EPSG","7030"]],AUTHORITY["EPSG","6326"]],PRIMEM["Greenwich",0,AUTHORITY["EPSG","8901"]],UNIT["degree",0.0174532925199433,AUTHORITY["EPSG","9122"]],AXIS["Latitude",NORTH],AXIS["Longitude",EAST],AUTHORITY["EPSG","4326"]]';

export function gpkgSystemStatements(): string[] {
  return [
    `CREATE TABLE IF NOT EXISTS gpkg_spatial_ref_sys (
  srs_name TEXT NOT NULL,
  srs_id INTEGER PRIMARY KEY,
  organization TEXT NOT NULL,
  organization_coordsys_id INTEGER NOT NULL,
  definition TEXT NOT NULL,
  description TEXT
)`,
    `INSERT OR IGNORE INTO gpkg_spatial_ref_sys VALUES
  ('Undefined cartesian SRS', -1, 'NONE', -1, 'undefined', 'undefined cartesian coordinate reference system'),
  ('Undefined geographic SRS', 0, 'NONE', 0, 'undefined', 'undefined geographic coordinate reference system'),
  ('WGS 84 geodetic', 4326, 'EPSG', 4326, '${WGS84_WKT}', 'longitude/latitude coordinates in decimal degrees on the WGS 84 spheroid')`,
    `CREATE TABLE IF NOT EXISTS gpkg_contents (
  table_name TEXT NOT NULL PRIMARY KEY,
  data_type TEXT NOT NULL,
  identifier TEXT UNIQUE,
  description TEXT DEFAULT '',
  last_change DATETIME NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')),
  min_x DOUBLE,
  min_y DOUBLE,
  max_x DOUBLE,
  max_y DOUBLE,
  srs_id INTEGER,
  CONSTRAINT fk_gc_r_srs_id FOREIGN KEY (srs_id) REFERENCES gpkg_spatial_ref_sys(srs_id)
)`,
    `CREATE TABLE IF NOT EXISTS gpkg_geometry_columns (
  table_name TEXT NOT NULL,
  column_name TEXT NOT NULL,
  geometry_type_name TEXT NOT NULL,
  srs_id INTEGER NOT NULL,
  z TINYINT NOT NULL,
  m TINYINT NOT NULL,
  CONSTRAINT pk_geom_cols PRIMARY KEY (table_name, column_name),
  CONSTRAINT uk_gc_table_name UNIQUE (table_name),
  CONSTRAINT fk_gc_tn FOREIGN KEY (table_name) REFERENCES gpkg_contents(table_name),
  CONSTRAINT fk_gc_srs FOREIGN KEY (srs_id) REFERENCES gpkg_spatial_ref_sys (srs_id)
)`,
    `CREATE TABLE IF NOT EXISTS gpkg_extensions (
  table_name TEXT,
  column_name TEXT,
  extension_name TEXT NOT NULL,
  definition TEXT NOT NULL,
  scope TEXT NOT NULL,
  CONSTRAINT ge_tce UNIQUE (table_name, column_name, extension_name)
)`,
    STATE_TABLE_SQL,
  ];
}

/**
 * The sink's state table, registered as an attributes table (1.3 clause 2.4, whose requirement 119 asks an
 * INTEGER PRIMARY KEY): readers see a described, valid table rather than an unknown one, and GDAL lists it as
 * what it is. The partition is unique, as its primary key was before.
 */
const STATE_TABLE_SQL = `CREATE TABLE IF NOT EXISTS georefresh_sink_state (
  id INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL,
  table_name TEXT NOT NULL,
  dataset TEXT NOT NULL,
  region TEXT NOT NULL,
  logical_date DATE NOT NULL,
  sha256 TEXT NOT NULL,
  sink_run TEXT NOT NULL,
  UNIQUE (table_name, region, logical_date)
)`;

const STATE_COLUMNS = "table_name, dataset, region, logical_date, sha256, sink_run";

/**
 * Statements that bring a state table made before it had an id (its primary key the partition) to today's, its
 * rows kept, then register it; none when it is today's. Run inside the sink's transaction.
 */
export function stateTableStatements(columns: readonly string[]): string[] {
  const register = `INSERT OR IGNORE INTO gpkg_contents (table_name, data_type, identifier, description, last_change)
VALUES ('georefresh_sink_state', 'attributes', 'georefresh_sink_state', 'which partition versions georefresh sink applied to each table (not data)', '1970-01-01T00:00:00.000Z')`;
  if (columns.includes("id")) return [register];
  return [
    "ALTER TABLE georefresh_sink_state RENAME TO georefresh_sink_state_before",
    STATE_TABLE_SQL,
    `INSERT INTO georefresh_sink_state (${STATE_COLUMNS}) SELECT ${STATE_COLUMNS} FROM georefresh_sink_state_before ORDER BY table_name, region, logical_date`,
    "DROP TABLE georefresh_sink_state_before",
    register,
  ];
}

/**
 * The gpkg_spatial_ref_sys row of an EPSG code. 4326 is always there; another code is named by its authority and
 * code, its definition "undefined" (readers such as GDAL resolve EPSG codes from their own database).
 */
export function srsRow(id: number): {
  name: string;
  id: number;
  organization: string;
  code: number;
  definition: string;
  description: string;
} {
  if (id === 4326)
    return { name: "WGS 84 geodetic", id, organization: "EPSG", code: id, definition: WGS84_WKT, description: "" };
  return { name: `EPSG:${id}`, id, organization: "EPSG", code: id, definition: "undefined", description: `EPSG:${id}` };
}

const literal = (text: string) => `'${text.replace(/'/g, "''")}'`;

/** The R-tree of a table's `geom` (primary key `fid`), its six triggers, and its gpkg_extensions row. */
export function rtreeStatements(table: string): string[] {
  const t = quoteName(table);
  const r = quoteName(`rtree_${table}_geom`);
  const trigger = (suffix: string) => quoteName(`rtree_${table}_geom_${suffix}`);
  const values = `NEW.fid, ST_MinX(NEW.geom), ST_MaxX(NEW.geom), ST_MinY(NEW.geom), ST_MaxY(NEW.geom)`;
  return [
    `CREATE VIRTUAL TABLE ${r} USING rtree(id, minx, maxx, miny, maxy)`,
    `CREATE TRIGGER ${trigger("insert")} AFTER INSERT ON ${t}
  WHEN (new.geom NOT NULL AND NOT ST_IsEmpty(NEW.geom))
BEGIN
  INSERT OR REPLACE INTO ${r} VALUES (${values});
END`,
    `CREATE TRIGGER ${trigger("update1")} AFTER UPDATE OF geom ON ${t}
  WHEN OLD.fid = NEW.fid AND (NEW.geom NOTNULL AND NOT ST_IsEmpty(NEW.geom))
BEGIN
  INSERT OR REPLACE INTO ${r} VALUES (${values});
END`,
    `CREATE TRIGGER ${trigger("update2")} AFTER UPDATE OF geom ON ${t}
  WHEN OLD.fid = NEW.fid AND (NEW.geom ISNULL OR ST_IsEmpty(NEW.geom))
BEGIN
  DELETE FROM ${r} WHERE id = OLD.fid;
END`,
    `CREATE TRIGGER ${trigger("update3")} AFTER UPDATE OF geom ON ${t}
  WHEN OLD.fid != NEW.fid AND (NEW.geom NOTNULL AND NOT ST_IsEmpty(NEW.geom))
BEGIN
  DELETE FROM ${r} WHERE id = OLD.fid;
  INSERT OR REPLACE INTO ${r} VALUES (${values});
END`,
    `CREATE TRIGGER ${trigger("update4")} AFTER UPDATE ON ${t}
  WHEN OLD.fid != NEW.fid AND (NEW.geom ISNULL OR ST_IsEmpty(NEW.geom))
BEGIN
  DELETE FROM ${r} WHERE id IN (OLD.fid, NEW.fid);
END`,
    `CREATE TRIGGER ${trigger("delete")} AFTER DELETE ON ${t}
  WHEN old.geom NOT NULL
BEGIN
  DELETE FROM ${r} WHERE id = OLD.fid;
END`,
    `INSERT INTO gpkg_extensions (table_name, column_name, extension_name, definition, scope)
  VALUES (${literal(table)}, 'geom', 'gpkg_rtree_index', 'http://www.geopackage.org/spec120/#extension_rtree', 'write-only')`,
  ];
}
