import type { Table } from "apache-arrow";
import type { Crs } from "../geo/crs/crs.js";
import { crsFromGeoParquet } from "../geo/crs/crs.js";
import { wkbEqualAreaArea } from "../geo/area.js";
import type { GeometryValidator } from "../geo/validity.js";
import { rewriteWkbColumn } from "../geo/wkb-rewrite.js";
import { binaryColumn } from "../geoparquet/columns.js";
import { openRanged } from "../geoparquet/ranged-read.js";
import { digestReady, RowDigester } from "../changes/row-digest.js";
import type { RowDigests } from "../changes/row-digest.js";
import type { RangeSource } from "../geoparquet/ranged-read.js";
import type { DroppedRecord } from "../manifest/types.js";
import { DROPPED_KEY, droppedOf } from "../manifest/dropped.js";

export type { RangeSource } from "../geoparquet/ranged-read.js";

/** What a written artifact really holds, read back from its bytes. */
export interface ArtifactFacts {
  sha256: string;
  bytes: number;
  rows: number;
  bbox: [number, number, number, number] | null;
  crs: string;
  geometryTypes: string[];
  columns: { name: string; type: string }[];
  areaM2: number;
  problems: string[];
  /** Each row's digests, when the task names a natural key (docs/changes.md). */
  digests?: RowDigests;
  /** The rows compute dropped, from the footer (protocol/dropped.ts). */
  dropped?: DroppedRecord;
}

export interface InspectOptions {
  /** The largest read between row groups (the memory setting's part size). */
  chunkBytes: number;
  /** The natural key: also digest every row (one pass serves both). */
  key?: readonly string[];
  /** How a refusal names a row: as the file it was read from counts its features, when known. */
  rowName?: (row: number) => string;
}

/** The covering's four leaves as plain arrays, with its validity bitmap (null rows have no box). */
function coveringArrays(table: Table, name: string | undefined) {
  const data = name ? table.getChild(name)?.data : undefined;
  if (!data || data.length !== 1) return undefined; // one batch per row group (readGeoParquet's batch size)
  const d = data[0];
  const leaf = (i: number) => d?.children[i]?.values as Float32Array | Float64Array | undefined;
  const [xmin, ymin, xmax, ymax] = [leaf(0), leaf(1), leaf(2), leaf(3)];
  if (!xmin || !ymin || !xmax || !ymax) return undefined;
  return { xmin, ymin, xmax, ymax, valid: d?.nullCount ? d.nullBitmap : undefined, offset: d?.offset ?? 0 };
}

/** Accumulates what the rows say, row group by row group, with every problem found. */
class RowChecks {
  rows = 0;
  areaM2 = 0;
  readonly bbox: [number, number, number, number] = [Infinity, Infinity, -Infinity, -Infinity];
  readonly types = new Set<string>();
  readonly problems: string[] = [];
  private invalid = 0;

  constructor(
    private readonly crs: Crs,
    private readonly validator: GeometryValidator,
    /** A row as its file names it (produce.ts), else "row N" of the artifact. */
    private readonly rowName: (row: number) => string = (row) => `row ${row}`,
  ) {}

  async group(table: Table, firstRow: number, geometry: string, covering: string | undefined): Promise<void> {
    const vector = table.getChild(geometry);
    if (!vector) throw new Error(`primary column '${geometry}' missing`);
    const wkb = binaryColumn(vector, geometry);
    const rows = wkb.offsets.length - 1;
    this.rows += rows;
    const issues = await this.validator.validate(wkb.data, wkb.offsets, this.crs);
    for (const issue of issues) {
      if (this.invalid++ < 10)
        this.problems.push(`${this.rowName(firstRow + issue.row)}: ${issue.reason.replace(/^row \d+: /, "")}`);
    }
    if (issues.length) return;
    const { bboxes, types } = rewriteWkbColumn(wkb.data, wkb.offsets); // extents and types without objects
    for (const t of types) this.types.add(t);
    const c = coveringArrays(table, covering);
    for (let i = 0; i < rows; i++) {
      this.areaM2 += wkbEqualAreaArea(wkb.data.subarray(wkb.offsets[i], wkb.offsets[i + 1]), this.crs, firstRow + i);
      const x0 = bboxes[4 * i] as number;
      if (x0 !== x0) continue; // empty
      const [y0, x1, y1] = [bboxes[4 * i + 1] as number, bboxes[4 * i + 2] as number, bboxes[4 * i + 3] as number];
      if (x0 < this.bbox[0]) this.bbox[0] = x0;
      if (y0 < this.bbox[1]) this.bbox[1] = y0;
      if (x1 > this.bbox[2]) this.bbox[2] = x1;
      if (y1 > this.bbox[3]) this.bbox[3] = y1;
      if (c) {
        const j = c.offset + i;
        const present = !c.valid || ((c.valid[j >> 3] as number) >> (j & 7)) & 1;
        const contains =
          present &&
          (c.xmin[i] as number) <= x0 &&
          (c.ymin[i] as number) <= y0 &&
          (c.xmax[i] as number) >= x1 &&
          (c.ymax[i] as number) >= y1;
        if (!contains && this.invalid++ < 10)
          this.problems.push(`${this.rowName(firstRow + i)}: its bbox covering does not contain the geometry`);
      }
    }
  }

  finish(): void {
    if (this.invalid > 10) this.problems.push(`… ${this.invalid - 10} more problems in rows`);
  }
}

/**
 * Reads an artifact back by byte ranges, one row group at a time (docs/large-partitions.md), and checks it: the
 * CRS is the storage CRS; every geometry decodes, is valid (GEOS), finite and inside the CRS domain; each
 * covering box contains its geometry; the footer's bbox and geometry_types match the rows. Returns the facts the
 * manifest records with every problem found (empty when the artifact may be published), and the sha256 of
 * exactly the bytes read. Only Arrow buffers are touched, never a row accessor.
 */
export async function inspectArtifact(
  source: RangeSource,
  where: string,
  storageCrs: Crs,
  validator: GeometryValidator,
  options: InspectOptions,
): Promise<ArtifactFacts> {
  const file = await openRanged(source, where, options);
  const problems: string[] = [];
  const { dropped, problem: droppedProblem } = droppedOf(file.keyValue(DROPPED_KEY));
  if (droppedProblem) problems.push(droppedProblem);
  const column = file.geo.columns[file.geo.primary_column] ?? { encoding: "WKB", geometry_types: [] };
  let crs: Crs | undefined;
  try {
    crs = crsFromGeoParquet(column, where);
  } catch (error) {
    problems.push((error as Error).message);
  }
  if (crs && crs.id !== storageCrs.id) problems.push(`CRS is ${crs.id}, expected the storage CRS ${storageCrs.id}`);
  const covering = column.covering?.bbox?.xmin?.[0];
  const checks = new RowChecks(storageCrs, validator, options.rowName);
  let columns: ArtifactFacts["columns"] = [];
  const key = options.key;
  if (key?.includes(file.geo.primary_column))
    problems.push(`the key names the geometry column '${file.geo.primary_column}'`);
  const digester = key?.length
    ? new RowDigester({ key, geometry: file.geo.primary_column, skip: covering ? [covering] : [] }, file.rows)
    : undefined;
  if (digester) await digestReady();
  for await (const g of file.rowGroups()) {
    if (g.index === 0) {
      columns = g.table.schema.fields.map((f) => ({ name: f.name, type: String(f.type) }));
      const absent = key?.filter((k) => !g.table.schema.fields.some((f) => f.name === k)) ?? [];
      if (absent.length) {
        const names = absent.map((k) => `'${k}'`).join(", ");
        problems.push(`the key column${absent.length > 1 ? `s ${names} are` : ` ${names} is`} not in the artifact`);
        break;
      }
    }
    await checks.group(g.table, g.firstRow, file.geo.primary_column, covering);
    digester?.group(g.table);
  }
  checks.finish();
  problems.push(...checks.problems);
  if (checks.rows !== file.rows) problems.push(`the footer says ${file.rows} rows, the row groups hold ${checks.rows}`);
  const dataBox = checks.bbox[0] <= checks.bbox[2] ? checks.bbox : null;
  const declared = column.bbox as number[] | undefined;
  if (checks.problems.length === 0 && JSON.stringify(declared ?? null) !== JSON.stringify(dataBox))
    problems.push(`footer bbox ${JSON.stringify(declared)} differs from the rows' ${JSON.stringify(dataBox)}`);
  const undeclared = [...checks.types].filter(
    (t) => column.geometry_types.length && !column.geometry_types.includes(t),
  );
  if (undeclared.length)
    problems.push(`rows hold ${undeclared.join(", ")}, which the footer's geometry_types do not list`);
  return {
    sha256: await file.sha256(),
    bytes: source.size,
    rows: checks.rows,
    bbox: dataBox,
    crs: storageCrs.id,
    geometryTypes: column.geometry_types,
    columns,
    areaM2: checks.areaM2,
    problems,
    ...(digester && !problems.length ? { digests: digester.finish() } : {}),
    ...(dropped ? { dropped } : {}),
  };
}
