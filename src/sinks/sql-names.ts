import { SinkSchemaError } from "./errors.js";
import type { CopyType } from "./pg-copy-binary.js";

export { SinkSchemaError } from "./errors.js";

/** PostgreSQL truncates identifiers past 63 bytes without a word: two long names could become one. */
export const MAX_IDENTIFIER_BYTES = 63;

/**
 * An identifier, always double-quoted (so case, spaces, quotes and `;` are data, never SQL), in PostgreSQL and
 * SQLite alike. An empty name, or one with a NUL, is refused, saying which.
 */
export function quoteName(name: string, what = "name"): string {
  if (name.length === 0) throw new SinkSchemaError(`${what} is empty: give it a name`);
  if (name.includes("\0")) throw new SinkSchemaError(`${what} ${JSON.stringify(name)} holds a NUL character`);
  return `"${name.replace(/"/g, '""')}"`;
}

/** A PostgreSQL identifier (quoteName), refused when PostgreSQL would silently cut it. */
export function quoteIdent(name: string, what = "name"): string {
  const quoted = quoteName(name, what);
  const bytes = new TextEncoder().encode(name).length;
  if (bytes > MAX_IDENTIFIER_BYTES)
    throw new SinkSchemaError(
      `${what} ${JSON.stringify(name.slice(0, 80))} is ${bytes} bytes: PostgreSQL keeps ${MAX_IDENTIFIER_BYTES} and would silently cut it; rename it (a column), or set the table's name in the config (a dataset)`,
    );
  return quoted;
}

/** The table a dataset is applied to when the config names none: lower case, `.` and `-` as `_` ("us-counties" → "us_counties"). */
export function tableNameFor(dataset: string): string {
  return dataset.toLowerCase().replace(/[.-]/g, "_");
}

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
