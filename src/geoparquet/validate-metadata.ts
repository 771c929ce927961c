import { existsSync, readFileSync } from "node:fs";
import { DataType } from "apache-arrow";
import type { Schema } from "apache-arrow";
import { Ajv2020 } from "ajv/dist/2020.js";
import { Ajv } from "ajv";
import type { ValidateFunction } from "ajv";
import { crsFromProjjson, CrsError } from "../geo/crs/crs.js";
import type { FooterFacts, TopLevelColumn } from "./footer-facts.js";
import { isNativeEncoding, nativeTypeProblem } from "./geoarrow.js";
import type { GeoColumnMetadata, GeoMetadata } from "./metadata.js";
import geoSchema from "./geoparquet.schema.json" with { type: "json" };

/**
 * The metadata rules of GeoParquet 1.0, 1.1 and 2.0 (gpq's and geoparquet-io's, by their rule names in
 * docs/validate.md): the `geo` key against its schema and its version's options, the PROJJSON, the geometry
 * columns against the Parquet schema, and for native GEOMETRY/GEOGRAPHY columns the agreement of the `geo`
 * key with the logical type's crs and edges.
 */

export interface Finding {
  rule: string;
  severity: "error" | "warning";
  message: string;
  column?: string;
  row?: number;
}
export type Report = (f: Finding) => void;

export type SpecVersion = "1.0" | "1.1" | "2.0";

const validateGeoSchema = new Ajv2020({ strict: false, allErrors: true }).compile(geoSchema);

/** "1.0.0", "1.1.0", "2.0.0", "2.0-dev", with an optional pre-release tag; anything else is unknown. */
export function specVersion(version: unknown): SpecVersion | undefined {
  const m = typeof version === "string" ? /^(\d+)\.(\d+)(?:\.(\d+))?(?:-[A-Za-z0-9.]+)?$/.exec(version) : null;
  if (!m) return undefined;
  const v = `${m[1]}.${m[2]}`;
  if (v === "2.0") return "2.0";
  if ((v === "1.0" || v === "1.1") && m[3] !== undefined) return v;
  return undefined;
}

let projjsonSchema: ValidateFunction | null | undefined;
/**
 * PROJ's own PROJJSON schema, as PROJ installs it (Debian's proj-data), or GEOREFRESH_PROJJSON_SCHEMA. Not
 * shipped in the package: when it is absent the check is skipped and the report says so.
 */
function projjsonValidator(): ValidateFunction | null {
  if (projjsonSchema !== undefined) return projjsonSchema;
  const candidates = [
    process.env.GEOREFRESH_PROJJSON_SCHEMA,
    ...(process.env.PROJ_DATA ?? process.env.PROJ_LIB ?? "").split(":").map((d) => d && `${d}/projjson.schema.json`),
    "/usr/share/proj/projjson.schema.json",
    "/usr/local/share/proj/projjson.schema.json",
  ].filter((p): p is string => !!p);
  const path = candidates.find((p) => existsSync(p));
  try {
    projjsonSchema = path
      ? new Ajv({ strict: false, allErrors: false, validateSchema: false }).compile(
          JSON.parse(readFileSync(path, "utf8")) as object,
        )
      : null;
  } catch {
    projjsonSchema = null;
  }
  return projjsonSchema;
}

export interface ColumnPlan {
  name: string;
  meta: GeoColumnMetadata;
  /** "WKB" or a native encoding. */
  encoding: string;
}

/** Runs every metadata rule; returns the columns the data rules can read, or undefined when none can be. */
export function checkMetadata(
  geo: GeoMetadata,
  footer: { schema: Schema },
  facts: FooterFacts,
  report: Report,
  skipped: Set<string>,
): { version: SpecVersion | undefined; columns: ColumnPlan[] } {
  const error = (rule: string, message: string, column?: string) =>
    report({ rule, severity: "error", message, ...(column ? { column } : {}) });
  if (!validateGeoSchema(geo))
    for (const e of validateGeoSchema.errors ?? [])
      error("geo-schema", `'geo' metadata${e.instancePath || ""} ${e.message ?? "is invalid"}`);

  const version = specVersion(geo.version);
  if (!version)
    error(
      "version",
      `'geo' version ${JSON.stringify(geo.version)} is not one georefresh checks (1.0.0, 1.1.0, 2.0.0 and their pre-releases)`,
    );

  const fields = new Map(footer.schema.fields.map((f) => [f.name, f]));
  const plans: ColumnPlan[] = [];
  for (const [name, meta] of Object.entries(geo.columns)) {
    const encoding = typeof meta.encoding === "string" ? meta.encoding : "";
    if (version) checkVersionOptions(version, name, meta, encoding, error);
    checkCrs(name, meta, error, skipped);
    if (meta.edges === "spherical" && meta.orientation !== "counterclockwise")
      report({
        rule: "spherical-orientation",
        severity: "warning",
        column: name,
        message: `edges are spherical but no orientation is declared; polygons are ambiguous on a sphere (set "orientation": "counterclockwise")`,
      });
    const field = fields.get(name);
    const column = facts.columns.get(name);
    if (!field || !column) {
      error("geometry-column", `geometry column '${name}' is described in 'geo' but missing from the file`, name);
      continue;
    }
    if (column.repetition === "REPEATED") {
      error("geometry-column", `geometry column '${name}' is repeated; it must be required or optional`, name);
      continue;
    }
    if (encoding === "WKB") {
      if (column.physical !== "BYTE_ARRAY" || (!DataType.isBinary(field.type) && !DataType.isLargeBinary(field.type))) {
        error(
          "geometry-column",
          `geometry column '${name}' is ${String(field.type)}; WKB must be a top-level BYTE_ARRAY (binary) column`,
          name,
        );
        continue;
      }
      checkNativeType(version, name, meta, column, report);
    } else if (isNativeEncoding(encoding)) {
      const problem = nativeTypeProblem(field.type, encoding);
      if (problem) {
        error("geometry-column", `geometry column '${name}' cannot hold encoding '${encoding}': ${problem}`, name);
        continue;
      }
    } else continue; // the schema rule reported it
    plans.push({ name, meta, encoding });
  }
  return { version, columns: plans };
}

const SUFFIX = / (Z|M|ZM)$/;

function checkVersionOptions(
  version: SpecVersion,
  name: string,
  meta: GeoColumnMetadata,
  encoding: string,
  error: (rule: string, message: string, column?: string) => void,
): void {
  if (encoding !== "WKB" && !(version === "1.1" && isNativeEncoding(encoding)))
    error(
      "encoding",
      `column '${name}': encoding '${encoding}' is not allowed in GeoParquet ${version} (${version === "1.1" ? "WKB, point, linestring, polygon, multipoint, multilinestring, multipolygon" : "WKB only"})`,
      name,
    );
  if (version !== "2.0")
    for (const t of meta.geometry_types ?? []) {
      const suffix = SUFFIX.exec(String(t))?.[1];
      if (suffix === "M" || suffix === "ZM")
        error("geometry-types", `column '${name}': '${t}' needs GeoParquet 2.0; ${version} knows only XY and Z`, name);
    }
  const n = Array.isArray(meta.bbox) ? meta.bbox.length : 0;
  if (n === 8 && version !== "2.0")
    error("bbox", `column '${name}': an 8-number (XYZM) bbox needs GeoParquet 2.0`, name);
  if (meta.covering !== undefined && version === "1.0")
    error("covering", `column '${name}': "covering" arrived in GeoParquet 1.1; this file says 1.0`, name);
}

function checkCrs(
  name: string,
  meta: GeoColumnMetadata,
  error: (rule: string, message: string, column?: string) => void,
  skipped: Set<string>,
): void {
  if (!("crs" in meta) || meta.crs === null || meta.crs === undefined) return;
  if (typeof meta.crs !== "object" || Array.isArray(meta.crs)) {
    error("crs", `column '${name}': "crs" must be a PROJJSON object or null`, name);
    return;
  }
  const validate = projjsonValidator();
  if (!validate) {
    skipped.add("crs-projjson");
    return;
  }
  if (!validate(meta.crs)) {
    const e = validate.errors?.[0];
    error(
      "crs-projjson",
      `column '${name}': the crs is not valid PROJJSON (${e?.instancePath || "/"} ${e?.message ?? "is invalid"})`,
      name,
    );
  }
}

/** The identity of a crs for comparison: a known CRS's id, else canonical JSON. */
function crsIdentity(crs: unknown): string {
  if (crs === undefined) return "OGC:CRS84";
  if (crs === null) return "null";
  try {
    return crsFromProjjson(crs, "crs").id;
  } catch (e) {
    if (!(e instanceof CrsError)) throw e;
    return JSON.stringify(crs);
  }
}

/** 2.0 requires the native type; whenever it is there, `geo` must agree with its crs and edges. */
function checkNativeType(
  version: SpecVersion | undefined,
  name: string,
  meta: GeoColumnMetadata,
  column: TopLevelColumn,
  report: Report,
): void {
  const error = (rule: string, message: string) => report({ rule, severity: "error", column: name, message });
  const logical = column.geo;
  if (!logical) {
    if (version === "2.0")
      error(
        "native-type",
        `GeoParquet 2.0 needs '${name}' annotated with Parquet's GEOMETRY or GEOGRAPHY logical type`,
      );
    return;
  }
  // crs: absent means OGC:CRS84 in both; 2.0 wants anything else as inline PROJJSON.
  let native: unknown;
  const text = logical.crs?.trim();
  if (text === undefined || text === "" || /^(OGC:CRS84|EPSG:4326|srid:4326)$/i.test(text)) native = undefined;
  else if (text.startsWith("{")) {
    try {
      native = JSON.parse(text);
    } catch {
      error("native-crs", `the ${logical.kind} type's crs is not valid JSON`);
      return;
    }
  } else {
    if (version === "2.0")
      error(
        "native-crs",
        `the ${logical.kind} type's crs is '${text.slice(0, 60)}'; GeoParquet 2.0 requires an inline PROJJSON crs`,
      );
    return;
  }
  const declared = crsIdentity("crs" in meta ? meta.crs : undefined);
  const actual = crsIdentity(native);
  if (declared !== actual)
    error(
      "native-crs",
      `'geo' says the crs is ${declared.slice(0, 80)}, the ${logical.kind} type says ${actual.slice(0, 80)}`,
    );
  const edges = (meta.edges as string | undefined) ?? "planar";
  if (logical.kind === "GEOMETRY" && edges !== "planar")
    error("native-edges", `'geo' says edges are ${edges}, but a GEOMETRY column has planar edges (use GEOGRAPHY)`);
  if (logical.kind === "GEOGRAPHY" && edges === "planar")
    error("native-edges", `the column is GEOGRAPHY (${logical.algorithm ?? "SPHERICAL"} edges), but 'geo' says planar`);
}
