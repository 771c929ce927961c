import { isoTypeCode } from "../geo/geometry.js";
import { readHeader } from "../geo/wkb.js";
import { topLevelElements } from "./footer.js";
import { field, list, listField, setField, struct, structField, T, text, ThriftError, utf8 } from "./thrift.js";
import type { ThriftStruct } from "./thrift.js";

/**
 * Parquet's native geospatial annotation (parquet-format 2.11+, what GeoParquet 2.0 requires): the GEOMETRY
 * logical type on the WKB column and `geospatial_statistics` on each of its column chunks. parquet-wasm cannot
 * write either, so the writer rewrites the FileMetaData it produced; data pages are untouched.
 */

/** One row group's geometry extent (XY; undefined when every geometry in it is empty) and ISO type codes. */
export interface GroupGeoStats {
  bbox: [number, number, number, number] | undefined;
  types: number[];
}

// Thrift field ids, from parquet.thrift.
const FILE = { schema: 2, rowGroups: 4 } as const;
const SCHEMA = { type: 1, logicalType: 10 } as const;
const LOGICAL_GEOMETRY = 17;
const ROW_GROUP_COLUMNS = 1;
const CHUNK_META = 3;
const META = { pathInSchema: 3, statistics: 12, geospatialStatistics: 17 } as const;
const NULL_COUNT = 3;

/** Accumulates one row group's statistics from its WKB values and their precomputed XY boxes (NaN = empty). */
export class GroupStatsBuilder {
  private box: [number, number, number, number] = [Infinity, Infinity, -Infinity, -Infinity];
  private readonly codes = new Set<number>();

  add(wkb: Uint8Array, bboxes: Float64Array, row: number): void {
    const h = readHeader(new DataView(wkb.buffer, wkb.byteOffset, wkb.byteLength), 0, wkb.byteLength, row, 0);
    this.codes.add(isoTypeCode(h.type, h.z));
    const j = 4 * row;
    const x0 = bboxes[j] as number;
    if (x0 !== x0) return; // empty: no extent
    const b = this.box;
    if (x0 < b[0]) b[0] = x0;
    if ((bboxes[j + 1] as number) < b[1]) b[1] = bboxes[j + 1] as number;
    if ((bboxes[j + 2] as number) > b[2]) b[2] = bboxes[j + 2] as number;
    if ((bboxes[j + 3] as number) > b[3]) b[3] = bboxes[j + 3] as number;
  }

  done(): GroupGeoStats {
    return { bbox: this.box[0] <= this.box[2] ? this.box : undefined, types: [...this.codes].sort((a, b) => a - b) };
  }
}

/** The geometry column's chunk in a row group: the one whose path is exactly [column]. */
export function geometryChunkMeta(rowGroup: ThriftStruct, column: string): ThriftStruct | undefined {
  for (const chunk of listField(rowGroup, ROW_GROUP_COLUMNS) as ThriftStruct[]) {
    const meta = structField(chunk, CHUNK_META);
    const path = meta ? listField(meta, META.pathInSchema).map((p) => text(p)) : [];
    if (meta && path.length === 1 && path[0] === column) return meta;
  }
  return undefined;
}

function boundingBox(b: [number, number, number, number]): ThriftStruct {
  // BoundingBox orders x, then y: xmin, xmax, ymin, ymax.
  const d = (id: number, v: number) => ({ id, type: T.DOUBLE, value: v });
  return struct(d(1, b[0]), d(2, b[2]), d(3, b[1]), d(4, b[3]));
}

/**
 * Marks (in the FileMetaData, before it is written) `column` as GEOMETRY (crs: the PROJJSON text, or none for OGC:CRS84, the type's default) and gives each
 * of its chunks `geospatial_statistics`; `groups` are the row groups in file order.
 */
export function annotateGeometry(
  metadata: ThriftStruct,
  args: { column: string; crs: string | undefined; groups: GroupGeoStats[] },
): void {
  const element = topLevelElements(listField(metadata, FILE.schema) as ThriftStruct[]).get(args.column);
  if (!element || field(element, SCHEMA.type) !== 6 /* BYTE_ARRAY */)
    throw new ThriftError(`column '${args.column}' is not a top-level BYTE_ARRAY column`);
  const geometryType = struct(...(args.crs ? [{ id: 1, type: T.BINARY, value: utf8(args.crs) }] : []));
  setField(
    element,
    SCHEMA.logicalType,
    T.STRUCT,
    struct({ id: LOGICAL_GEOMETRY, type: T.STRUCT, value: geometryType }),
  );

  const rowGroups = listField(metadata, FILE.rowGroups) as ThriftStruct[];
  if (rowGroups.length !== args.groups.length)
    throw new ThriftError(
      `the file has ${rowGroups.length} row groups, statistics were given for ${args.groups.length}`,
    );
  rowGroups.forEach((rg, i) => {
    const meta = geometryChunkMeta(rg, args.column);
    if (!meta) throw new ThriftError(`row group ${i} has no chunk for '${args.column}'`);
    const g = args.groups[i] as GroupGeoStats;
    const stats = struct(...(g.bbox ? [{ id: 1, type: T.STRUCT, value: boundingBox(g.bbox) }] : []), {
      id: 2,
      type: T.LIST,
      value: list(T.I32, g.types),
    });
    setField(meta, META.geospatialStatistics, T.STRUCT, stats);
    // DuckDB reads geospatial statistics only beside plain ones; WKB min/max mean nothing, null_count does.
    if (!structField(meta, META.statistics))
      setField(meta, META.statistics, T.STRUCT, struct({ id: NULL_COUNT, type: T.I64, value: 0n }));
  });
}
