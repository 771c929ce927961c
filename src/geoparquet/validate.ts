import { DataType } from "apache-arrow";
import type { Table, Vector } from "apache-arrow";
import { Ajv2020 } from "ajv/dist/2020.js";
import { crsFromGeoParquet, CrsError } from "../geo/crs.js";
import type { Crs } from "../geo/crs.js";
import { GeometryValidator } from "../geo/validity.js";
import { wkbSummary, WkbError } from "../geo/wkb.js";
import { binaryColumn } from "./columns.js";
import { parseGeoMetadata } from "./metadata.js";
import type { GeoColumnMetadata, GeoMetadata } from "./metadata.js";
import { readFooter, readRowGroups } from "./read.js";
import geoSchema from "./geoparquet.schema.json" with { type: "json" };

export interface Finding {
  rule: string;
  severity: "error" | "warning";
  message: string;
  column?: string;
  row?: number;
}

export interface FileReport {
  file: string;
  ok: boolean;
  rows: number;
  crs: string | undefined;
  findings: Finding[];
}

export interface ValidateFileOptions {
  expectCrs?: Crs;
  threads?: number;
  /** Stop listing per-row findings after this many (the count is still reported). */
  maxRowFindings?: number;
}

const validateGeoSchema = new Ajv2020({ strict: false, allErrors: true }).compile(geoSchema);

const rel = (a: number, b: number) => Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(a), Math.abs(b));

/**
 * Checks a GeoParquet file like gpq or geoparquet-io do, but on every row: metadata rules (schema, primary
 * column, geometry columns binary and top level, geometry_types and bbox true to the data, covering paths and
 * values) and data rules (WKB decodes, OGC-valid per GEOS, finite, inside the CRS domain).
 */
export async function validateGeoParquetFile(
  bytes: Uint8Array,
  file: string,
  options: ValidateFileOptions = {},
): Promise<FileReport> {
  const findings: Finding[] = [];
  const report = (f: Finding) => findings.push(f);
  const done = (rows: number, crs?: Crs): FileReport => ({
    file,
    ok: !findings.some((f) => f.severity === "error"),
    rows,
    crs: crs?.id,
    findings,
  });

  const footer = await readFooter(bytes, file); // unreadable files are an I/O-class error for the caller
  let geo: GeoMetadata;
  try {
    geo = parseGeoMetadata(footer.keyValue.get("geo"), file);
  } catch (error) {
    report({ rule: "geo-metadata", severity: "error", message: (error as Error).message });
    return done(footer.rows);
  }
  if (!validateGeoSchema(geo)) {
    for (const e of validateGeoSchema.errors ?? [])
      report({
        rule: "geo-schema",
        severity: "error",
        message: `'geo' metadata${e.instancePath || ""} ${e.message ?? "is invalid"}`,
      });
  }

  const fields = new Map(footer.schema.fields.map((f) => [f.name, f]));
  const columns = Object.entries(geo.columns ?? {});
  for (const [name] of columns) {
    const field = fields.get(name);
    if (!field)
      report({
        rule: "geometry-column",
        severity: "error",
        column: name,
        message: `geometry column '${name}' is described in 'geo' but missing from the file`,
      });
    else if (!DataType.isBinary(field.type) && !DataType.isLargeBinary(field.type)) {
      report({
        rule: "geometry-column",
        severity: "error",
        column: name,
        message: `geometry column '${name}' is ${String(field.type)}; WKB must be a top-level BYTE_ARRAY (binary) column`,
      });
    }
  }
  if (findings.some((f) => f.severity === "error")) return done(footer.rows);

  // CRS of the primary column (the one analysts query); per-column CRS facts drive each column's domain check.
  const crsOf = new Map<string, Crs | undefined>();
  for (const [name, meta] of columns) {
    try {
      crsOf.set(name, crsFromGeoParquet(meta, `${file} column '${name}'`));
    } catch (error) {
      if (!(error instanceof CrsError)) throw error;
      crsOf.set(name, undefined);
      report({
        rule: "crs",
        severity: "warning",
        column: name,
        message: `${(error as Error).message}; CRS-domain checks skipped for '${name}'`,
      });
    }
  }
  const primaryCrs = crsOf.get(geo.primary_column);
  if (options.expectCrs && primaryCrs?.id !== options.expectCrs.id) {
    report({
      rule: "crs",
      severity: "error",
      column: geo.primary_column,
      message: `expected ${options.expectCrs.id}, the file's primary column is in ${primaryCrs?.id ?? "an unknown CRS"}`,
    });
  }

  const maxRow = options.maxRowFindings ?? 100;
  let rowFindings = 0;
  const rowFinding = (f: Finding) => {
    rowFindings++;
    if (rowFindings <= maxRow) report(f);
  };
  const seen = new Map<string, ColumnStats>(
    columns.map(([n]) => [n, { types: new Set<string>(), bbox: [Infinity, Infinity, -Infinity, -Infinity] }]),
  );

  const validator = new GeometryValidator({ threads: options.threads });
  try {
    // Only what the checks read is decoded: a bomb in a property column never reaches memory.
    const fields = new Set(footer.schema.fields.map((f) => f.name));
    const needed = [
      ...new Set(
        columns.flatMap(([name, meta]) => [
          name,
          ...Object.values(meta.covering?.bbox ?? {}).map((p) => p[0] as string),
        ]),
      ),
    ].filter((n) => fields.has(n));
    for await (const group of readRowGroups(bytes, file, { columns: needed })) {
      for (const [name, meta] of columns) {
        const vector = group.table.getChild(name) as Vector;
        const wkb = binaryColumn(vector, name);
        const geomBoxes = summarise(vector, wkb, group.firstRow, seen.get(name) as ColumnStats);
        const crs = crsOf.get(name);
        for (const issue of await validator.validate(wkb.data, wkb.offsets, crs ?? crsFromGeoParquet({}, name))) {
          if (!vector.isValid(issue.row) || (issue.kind === "domain" && !crs)) continue; // nulls are allowed
          const message = issue.reason.replace(/^row \d+: /, "");
          rowFinding({
            rule: `geometry-${issue.kind}`,
            severity: "error",
            column: name,
            row: group.firstRow + issue.row,
            message,
          });
        }
        checkCovering(group.table, name, meta, geomBoxes, group.firstRow, rowFinding);
      }
    }
  } finally {
    await validator.close();
  }
  if (rowFindings > maxRow)
    report({
      rule: "summary",
      severity: "error",
      message: `${rowFindings - maxRow} more row findings not listed (${rowFindings} in all)`,
    });

  for (const [name, meta] of columns) {
    const { types, bbox } = seen.get(name) as ColumnStats;
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
      if (absent.length && footer.rows > 0)
        report({
          rule: "geometry-types",
          severity: "warning",
          column: name,
          message: `geometry_types declares ${absent.join(", ")}, which no row holds`,
        });
    }
    if (meta.bbox && bbox[0] !== Infinity) {
      const b = meta.bbox.length === 6 ? [meta.bbox[0], meta.bbox[1], meta.bbox[3], meta.bbox[4]] : meta.bbox;
      const [x0, y0, x1, y1] = b as number[];
      const contains =
        (x0 as number) <= (bbox[0] as number) + 1e-9 &&
        (y0 as number) <= (bbox[1] as number) + 1e-9 &&
        (x1 as number) >= (bbox[2] as number) - 1e-9 &&
        (y1 as number) >= (bbox[3] as number) - 1e-9;
      if (!contains)
        report({
          rule: "bbox",
          severity: "error",
          column: name,
          message: `declared bbox [${b.join(", ")}] does not contain the data's extent [${bbox.join(", ")}]`,
        });
      else if (!b.every((v, k) => rel(v as number, bbox[k] as number)))
        report({
          rule: "bbox",
          severity: "warning",
          column: name,
          message: `declared bbox [${b.join(", ")}] is looser than the data's extent [${bbox.join(", ")}]`,
        });
    }
  }
  return done(footer.rows, primaryCrs);
}

interface ColumnStats {
  types: Set<string>;
  bbox: number[];
}

/** Adds a row group's geometry types and extent to `stats`; returns each row's bbox (NaN when empty or bad). */
function summarise(
  vector: Vector,
  wkb: { data: Uint8Array; offsets: Int32Array },
  firstRow: number,
  stats: ColumnStats,
): Float64Array {
  const boxes = new Float64Array(4 * vector.length).fill(NaN);
  for (let i = 0; i < vector.length; i++) {
    if (!vector.isValid(i)) continue;
    try {
      const s = wkbSummary(wkb.data.subarray(wkb.offsets[i], wkb.offsets[i + 1]), firstRow + i);
      stats.types.add(s.type);
      if (!(s.bbox[0] <= s.bbox[2])) continue;
      boxes.set(s.bbox, 4 * i);
      const b = stats.bbox as [number, number, number, number];
      stats.bbox = [
        Math.min(b[0], s.bbox[0]),
        Math.min(b[1], s.bbox[1]),
        Math.max(b[2], s.bbox[2]),
        Math.max(b[3], s.bbox[3]),
      ];
    } catch (error) {
      if (!(error instanceof WkbError)) throw error; // reported by the data rules
    }
  }
  return boxes;
}

/** The covering column must exist as declared, and each row's box must contain its geometry's box. */
function checkCovering(
  table: Table,
  name: string,
  meta: GeoColumnMetadata,
  geomBoxes: Float64Array,
  firstRow: number,
  rowFinding: (f: Finding) => void,
): void {
  const paths = meta.covering?.bbox;
  if (!paths) return;
  const parts = (["xmin", "ymin", "xmax", "ymax"] as const).map((k) => {
    const [col, field] = paths[k];
    const struct = table.getChild(col as string);
    return struct && DataType.isStruct(struct.type) ? (struct.getChild(field as string) as Vector | null) : null;
  });
  if (parts.some((p) => !p || !DataType.isFloat(p.type))) {
    rowFinding({
      rule: "covering",
      severity: "error",
      column: name,
      message: `covering bbox paths ${JSON.stringify(paths)} do not name float columns of a struct in the file`,
    });
    return;
  }
  const [xmin, ymin, xmax, ymax] = parts as Vector[];
  for (let i = 0; i < geomBoxes.length / 4; i++) {
    if (Number.isNaN(geomBoxes[4 * i])) continue;
    const c = [xmin?.get(i), ymin?.get(i), xmax?.get(i), ymax?.get(i)] as number[];
    const g = geomBoxes.subarray(4 * i, 4 * i + 4);
    const ok =
      (c[0] as number) <= (g[0] as number) &&
      (c[1] as number) <= (g[1] as number) &&
      (c[2] as number) >= (g[2] as number) &&
      (c[3] as number) >= (g[3] as number);
    if (!ok)
      rowFinding({
        rule: "covering",
        severity: "error",
        column: name,
        row: firstRow + i,
        message: `covering bbox [${c.join(", ")}] does not contain the geometry's bbox [${[...g].join(", ")}]`,
      });
  }
}
