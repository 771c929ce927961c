import {
  Binary,
  Bool,
  Field,
  Float64,
  Int32,
  Int64,
  makeData,
  RecordBatch,
  Schema,
  Struct,
  Table,
  Utf8,
} from "apache-arrow";
import type { Data, DataType, Vector } from "apache-arrow";
import { vectorFromArray } from "apache-arrow";
import { ARROW_TYPE } from "../geoparquet/features.js";
import type { ColumnType } from "../geoparquet/features.js";
import { GEOMETRY, INFERRED } from "./batch-builder.js";
import { BadValue, convert, widest } from "./convert.js";
import { SourceError } from "./errors.js";

const TYPE_OF: Record<string, ColumnType> = {
  Utf8: "string",
  Float64: "float64",
  Int32: "int32",
  Int64: "int64",
  Bool: "bool",
};

/**
 * A reader's batches → one table of one schema: columns in the order they first appeared, a column a batch lacks
 * filled with nulls, and a type its values decided widened to what every batch holds (int32 → int64 → float64,
 * anything else mixed → string, as GDAL widens a GeoJSON field). The geometry column comes last, declared a
 * GeoArrow WKB column in `crs`, which compute's output honours (task/compute-output.ts).
 */
export function unifyBatches(batches: RecordBatch[], crs: unknown, where: string): Table {
  const order: string[] = [];
  const fixed = new Map<string, ColumnType>();
  const inferred = new Map<string, ColumnType | undefined>();
  for (const b of batches)
    for (const f of b.schema.fields) {
      if (f.name === GEOMETRY) continue;
      if (!order.includes(f.name)) order.push(f.name);
      const t = TYPE_OF[String(f.type)] as ColumnType;
      const how = f.metadata.get(INFERRED);
      if (how === undefined) fixed.set(f.name, t);
      else if (how !== "none") {
        const was = inferred.get(f.name);
        inferred.set(f.name, was === undefined ? t : widest(was, t));
      } else if (!inferred.has(f.name)) inferred.set(f.name, undefined);
    }
  const typeOf = (name: string): ColumnType => fixed.get(name) ?? inferred.get(name) ?? "string";
  const geometryField = new Field(
    GEOMETRY,
    new Binary(),
    false,
    new Map([
      ["ARROW:extension:name", "geoarrow.wkb"],
      ["ARROW:extension:metadata", JSON.stringify(crs === undefined ? {} : { crs })],
    ]),
  );
  const fields = [...order.map((name) => new Field(name, ARROW_TYPE[typeOf(name)](), true)), geometryField];
  const schema = new Schema(fields);
  const out = batches.map((b) => {
    const children: Data[] = order.map((name) => {
      const type = typeOf(name);
      const column = b.getChild(name) as Vector | null;
      if (column && TYPE_OF[String(column.type)] === type) return column.data[0] as Data;
      const values = column
        ? Array.from({ length: b.numRows }, (_, i) => cast(column.get(i) as unknown, type, where, name))
        : new Array<null>(b.numRows).fill(null);
      return vectorFromArray(values as never[], ARROW_TYPE[type]() as never).data[0] as Data;
    });
    children.push((b.getChild(GEOMETRY) as Vector).data[0] as Data);
    return new RecordBatch(schema, makeData({ type: new Struct(fields), length: b.numRows, children }));
  });
  return new Table(schema, out);
}

function cast(v: unknown, type: ColumnType, where: string, name: string): unknown {
  try {
    return convert(v, type);
  } catch (error) {
    if (error instanceof BadValue)
      throw new SourceError(`${where}, column ${JSON.stringify(name)}: ${error.message}; give the column a "type"`);
    throw error;
  }
}
