import { SinkSchemaError } from "../errors.js";
import type { CopyType } from "./copy-binary.js";

/**
 * Each Arrow type the manifest may record (its name as Arrow prints it): the SQL column type, and the binary COPY
 * type the sink loads it as (absent: the table can hold it, the loader cannot yet).
 */
const TYPES: Record<string, { sql: string; copy?: CopyType }> = {
  Utf8: { sql: "text", copy: "text" },
  LargeUtf8: { sql: "text", copy: "text" },
  Bool: { sql: "boolean", copy: "bool" },
  Int8: { sql: "smallint", copy: "int2" },
  Int16: { sql: "smallint", copy: "int2" },
  Int32: { sql: "integer", copy: "int4" },
  Int64: { sql: "bigint", copy: "int8" },
  Uint8: { sql: "smallint", copy: "int2" },
  Uint16: { sql: "integer", copy: "int4" },
  Uint32: { sql: "bigint", copy: "int8" },
  Uint64: { sql: "numeric(20)" },
  Float32: { sql: "real", copy: "float4" },
  Float64: { sql: "double precision", copy: "float8" },
  Binary: { sql: "bytea", copy: "bytea" },
  LargeBinary: { sql: "bytea", copy: "bytea" },
  "Date32<DAY>": { sql: "date" },
  "Date64<MILLISECOND>": { sql: "timestamp" },
};

/** A dictionary column is its values' type. */
const valueType = (arrowType: string) => /^Dictionary<[^,]+, (.+)>$/.exec(arrowType)?.[1] ?? arrowType;

/** The SQL type of an artifact column, from the type the manifest records (Arrow's name for it). */
export function sqlTypeOf(arrowType: string, column: string): string {
  const t = valueType(arrowType);
  const known = TYPES[t]?.sql;
  if (known) return known;
  if (/^Timestamp<\w+, .+>$/.test(t)) return "timestamptz";
  if (/^Timestamp<\w+>$/.test(t)) return "timestamp";
  if (/^(List|LargeList|FixedSizeList|Struct|Map)</.test(t)) return "jsonb";
  throw new SinkSchemaError(
    `column ${JSON.stringify(column)} has type ${arrowType}, which no sink column type holds yet (text, integers, floats, booleans, bytes, dates, timestamps, lists and structs as jsonb)`,
  );
}

/** The binary COPY type a sink loads an artifact column as. */
export function copyTypeOf(arrowType: string, column: string): CopyType {
  const copy = TYPES[valueType(arrowType)]?.copy;
  if (!copy)
    throw new SinkSchemaError(
      `column ${JSON.stringify(column)} has type ${arrowType}, which the sink cannot load yet (text, integers, floats, booleans, bytes)`,
    );
  return copy;
}
