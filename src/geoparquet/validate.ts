import type { Vector } from "apache-arrow";
import { crsFromGeoParquet, CrsError } from "../geo/crs/crs.js";
import type { Crs } from "../geo/crs/crs.js";
import { GeometryValidator } from "../geo/validity.js";
import type { WkbColumn } from "../geo/wkb.js";
import { binaryColumn } from "./columns.js";
import { footerFacts } from "./footer-facts.js";
import type { FooterFacts } from "./footer-facts.js";
import { nativeToWkb } from "./geoarrow.js";
import type { NativeEncoding } from "./geoarrow.js";
import { parseGeoMetadata } from "./metadata.js";
import type { GeoMetadata } from "./metadata.js";
import { readFooter, readRowGroups } from "./read.js";
import { checkMetadata } from "./validate-metadata.js";
import type { ColumnPlan, Finding } from "./validate-metadata.js";
import { checkPractice, checkSpatialOrder } from "./validate-practice.js";
import type { PracticeOptions } from "./validate-practice.js";
import {
  checkAntimeridianRows,
  checkCovering,
  checkNativeStatistics,
  checkOrientation,
  newStats,
  summarise,
} from "./validate-rows.js";
import type { ColumnStats } from "./validate-rows.js";
import { ThriftError } from "./thrift.js";

export type { Finding } from "./validate-metadata.js";

/** Every rule name a finding can carry (docs/validate.md): stable, so CI can --ignore one by name. */
export const RULES = [
  "geo-metadata",
  "geo-schema",
  "version",
  "encoding",
  "geometry-types",
  "bbox",
  "covering",
  "crs",
  "crs-projjson",
  "geometry-column",
  "native-type",
  "native-crs",
  "native-edges",
  "native-statistics",
  "parquet-footer",
  "geometry-wkb",
  "geometry-non-finite",
  "geometry-domain",
  "geometry-invalid",
  "orientation",
  "summary",
  "compression",
  "row-group-size",
  "spatial-order",
  "no-covering",
  "covering-statistics",
  "spherical-orientation",
] as const;

export interface FileReport {
  file: string;
  ok: boolean;
  rows: number;
  /** The `geo` version as the file states it. */
  version: string | undefined;
  crs: string | undefined;
  errors: Finding[];
  /** Best-practice and advisory findings: failures only with `strict`. */
  warnings: Finding[];
  /** Rules that could not run here, and why (e.g. PROJ's PROJJSON schema is not installed). */
  skipped: string[];
}

export interface ValidateFileOptions {
  expectCrs?: Crs;
  threads?: number;
  /** Stop listing per-row findings after this many (the count is still reported). */
  maxRowFindings?: number;
  /** Warnings fail the file too. */
  strict?: boolean;
  /** Rule names to leave out of the report (docs/validate.md lists them). */
  ignore?: string[];
  practice?: PracticeOptions;
}

const rel = (a: number, b: number) => Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(a), Math.abs(b));

/**
 * Checks a GeoParquet 1.0, 1.1 or 2.0 file with the rules of gpq and geoparquet-io, on every row: metadata
 * (validate-metadata.ts), data (WKB or GeoArrow decodes, GEOS-valid, finite, in the CRS domain, types,
 * bbox, covering, orientation, native statistics contain the data) and best practice (validate-practice.ts).
 */
export async function validateGeoParquetFile(
  bytes: Uint8Array,
  file: string,
  options: ValidateFileOptions = {},
): Promise<FileReport> {
  const ignore = new Set(options.ignore ?? []);
  const findings: Finding[] = [];
  const skipped = new Set<string>();
  const report = (f: Finding) => {
    if (!ignore.has(f.rule)) findings.push(f);
  };
  let version: string | undefined;
  const done = (rows: number, crs?: Crs): FileReport => {
    const errors = findings.filter((f) => f.severity === "error");
    const warnings = findings.filter((f) => f.severity === "warning");
    return {
      file,
      ok: errors.length === 0 && (!options.strict || warnings.length === 0),
      rows,
      version,
      crs: crs?.id,
      errors,
      warnings,
      skipped: [...skipped].map((r) => `${r}: PROJ's projjson.schema.json is not installed (Debian: proj-data)`),
    };
  };

  const footer = await readFooter(bytes, file); // unreadable files are an I/O-class error for the caller
  let geo: GeoMetadata;
  try {
    geo = parseGeoMetadata(footer.keyValue.get("geo"), file);
  } catch (error) {
    report({ rule: "geo-metadata", severity: "error", message: (error as Error).message });
    return done(footer.rows);
  }
  version = typeof geo.version === "string" ? geo.version : undefined;
  let facts: FooterFacts;
  try {
    facts = footerFacts(bytes);
  } catch (error) {
    if (!(error instanceof ThriftError)) throw error;
    report({ rule: "parquet-footer", severity: "error", message: `${file}: ${error.message}` });
    return done(footer.rows);
  }
  const { columns } = checkMetadata(geo, footer, facts, report, skipped);
  checkPractice(facts, columns, geo.primary_column, bytes.byteLength, options.practice ?? {}, report);
  if (findings.some((f) => f.severity === "error")) return done(footer.rows);

  const crsOf = columnCrs(columns, file, report);
  const primaryCrs = crsOf.get(geo.primary_column);
  if (options.expectCrs && primaryCrs?.id !== options.expectCrs.id)
    report({
      rule: "crs",
      severity: "error",
      column: geo.primary_column,
      message: `expected ${options.expectCrs.id}, the file's primary column is in ${primaryCrs?.id ?? "an unknown CRS"}`,
    });

  const seen = new Map<string, ColumnStats>(columns.map((c) => [c.name, newStats()]));
  const rowFindings = await checkRows(bytes, file, footer, facts, columns, crsOf, seen, options, report);
  const maxRow = options.maxRowFindings ?? 100;
  if (rowFindings > maxRow)
    report({
      rule: "summary",
      severity: "error",
      message: `${rowFindings - maxRow} more row findings not listed (${rowFindings} in all)`,
    });
  for (const c of columns) checkWholeColumn(c, seen.get(c.name) as ColumnStats, crsOf.get(c.name), footer.rows, report);
  const primary = seen.get(geo.primary_column);
  if (primary) checkSpatialOrder(Float64Array.from(primary.centres), geo.primary_column, report);
  return done(footer.rows, primaryCrs);
}

/** Per-column CRS; one that georefresh cannot identify is a warning and skips that column's domain checks. */
function columnCrs(columns: ColumnPlan[], file: string, report: (f: Finding) => void) {
  const crsOf = new Map<string, Crs | undefined>();
  for (const { name, meta } of columns) {
    try {
      crsOf.set(name, crsFromGeoParquet(meta, `${file} column '${name}'`));
    } catch (error) {
      if (!(error instanceof CrsError)) throw error;
      crsOf.set(name, undefined);
      report({
        rule: "crs",
        severity: "warning",
        column: name,
        message: `${error.message}; CRS-domain checks skipped for '${name}'`,
      });
    }
  }
  return crsOf;
}

/** The data rules, row group by row group; returns how many row findings there were (listed or not). */
async function checkRows(
  bytes: Uint8Array,
  file: string,
  footer: Awaited<ReturnType<typeof readFooter>>,
  facts: FooterFacts,
  columns: ColumnPlan[],
  crsOf: Map<string, Crs | undefined>,
  seen: Map<string, ColumnStats>,
  options: ValidateFileOptions,
  report: (f: Finding) => void,
): Promise<number> {
  const maxRow = options.maxRowFindings ?? 100;
  let rowFindings = 0;
  const rowFinding = (f: Finding) => {
    rowFindings++;
    if (rowFindings <= maxRow) report(f);
  };
  const validator = new GeometryValidator({ threads: options.threads });
  try {
    // Only what the checks read is decoded: a bomb in a property column never reaches memory.
    const fields = new Set(footer.schema.fields.map((f) => f.name));
    const needed = [
      ...new Set(
        columns.flatMap(({ name, meta }) => [
          name,
          ...Object.values(meta.covering?.bbox ?? {}).map((p) => p[0] as string),
        ]),
      ),
    ].filter((n) => fields.has(n));
    let index = 0;
    for await (const group of readRowGroups(bytes, file, { columns: needed })) {
      for (const { name, meta, encoding } of columns) {
        const vector = group.table.getChild(name) as Vector;
        const wkb: Pick<WkbColumn, "data" | "offsets"> =
          encoding === "WKB" ? binaryColumn(vector, name) : nativeToWkb(vector, encoding as NativeEncoding);
        const summary = summarise(vector, wkb, group.firstRow, seen.get(name) as ColumnStats);
        const crs = crsOf.get(name);
        for (const issue of await validator.validate(wkb.data, wkb.offsets, crs ?? crsFromGeoParquet({}, name))) {
          if (!vector.isValid(issue.row) || (issue.kind === "domain" && !crs)) continue; // nulls are allowed
          rowFinding({
            rule: `geometry-${issue.kind}`,
            severity: "error",
            column: name,
            row: group.firstRow + issue.row,
            message: issue.reason.replace(/^row \d+: /, ""),
          });
        }
        checkCovering(group.table, name, meta, summary.boxes, group.firstRow, rowFinding);
        if (meta.orientation === "counterclockwise") checkOrientation(vector, wkb, name, group.firstRow, rowFinding);
        const b = meta.bbox as number[] | undefined;
        const half = b ? b.length / 2 : 0;
        if (b && (b[0] as number) > (b[half] as number) && (crs?.geographic ?? true))
          checkAntimeridianRows(summary.boxes, b[0] as number, b[half] as number, name, group.firstRow, rowFinding);
        const chunk = facts.rowGroups[index]?.columns.find((c) => c.path.length === 1 && c.path[0] === name);
        const geography = facts.columns.get(name)?.geo?.kind === "GEOGRAPHY";
        checkNativeStatistics(chunk?.geo, summary, name, index, geography, report);
      }
      index++;
    }
  } finally {
    await validator.close();
  }
  return rowFindings;
}

/** geometry_types and bbox against what the rows hold. */
function checkWholeColumn(
  { name, meta }: ColumnPlan,
  { types, bbox }: ColumnStats,
  crs: Crs | undefined,
  rows: number,
  report: (f: Finding) => void,
): void {
  const declared = new Set(meta.geometry_types ?? []);
  if (declared.size > 0) {
    const undeclared = [...types].filter((t) => !declared.has(t));
    if (undeclared.length)
      report({
        rule: "geometry-types",
        severity: "error",
        column: name,
        message: `data holds ${undeclared.join(", ")}, which geometry_types [${[...declared].join(", ")}] does not declare`,
      });
    const absent = [...declared].filter((t) => !types.has(t));
    if (absent.length && rows > 0)
      report({
        rule: "geometry-types",
        severity: "warning",
        column: name,
        message: `geometry_types declares ${absent.join(", ")}, which no row holds`,
      });
  }
  if (!meta.bbox || bbox[0] === Infinity) return;
  const half = meta.bbox.length / 2;
  const b = [meta.bbox[0], meta.bbox[1], meta.bbox[half], meta.bbox[half + 1]] as number[];
  const [x0, y0, x1, y1] = b as [number, number, number, number];
  if (x0 > x1) {
    // Crossing the antimeridian (RFC 7946 §5.2) is for geographic CRSs only; rows were checked one by one.
    if (crs && !crs.geographic)
      report({
        rule: "bbox",
        severity: "error",
        column: name,
        message: `declared bbox has xmin ${x0} > xmax ${x1}, which only a geographic CRS may use (to cross the antimeridian)`,
      });
    else if (y0 > (bbox[1] as number) + 1e-9 || y1 < (bbox[3] as number) - 1e-9)
      report({
        rule: "bbox",
        severity: "error",
        column: name,
        message: `declared bbox [${b.join(", ")}] does not contain the data's latitudes`,
      });
    return;
  }
  const contains =
    x0 <= (bbox[0] as number) + 1e-9 &&
    y0 <= (bbox[1] as number) + 1e-9 &&
    x1 >= (bbox[2] as number) - 1e-9 &&
    y1 >= (bbox[3] as number) - 1e-9;
  if (!contains)
    report({
      rule: "bbox",
      severity: "error",
      column: name,
      message: `declared bbox [${b.join(", ")}] does not contain the data's extent [${bbox.join(", ")}]`,
    });
  else if (!b.every((v, k) => rel(v, bbox[k] as number)))
    report({
      rule: "bbox",
      severity: "warning",
      column: name,
      message: `declared bbox [${b.join(", ")}] is looser than the data's extent [${bbox.join(", ")}]`,
    });
}
