import { GeorefreshError } from "../errors.js";
import type { ErrorCode } from "../errors.js";

/** A name that cannot become a SQL identifier, or a column type no sink table can hold. */
export class SinkSchemaError extends GeorefreshError {
  override readonly code: ErrorCode = "SinkSchema";
}

/** PostgreSQL truncates identifiers past 63 bytes without a word: two long names could become one. */
export const MAX_IDENTIFIER_BYTES = 63;

/**
 * An identifier, always double-quoted (so case, spaces, quotes and `;` are data, never SQL). Names PostgreSQL
 * would truncate or cannot hold (a NUL) are refused, saying which and why.
 */
export function quoteIdent(name: string, what = "name"): string {
  if (name.length === 0) throw new SinkSchemaError(`${what} is empty: give it a name`);
  if (name.includes("\0")) throw new SinkSchemaError(`${what} ${JSON.stringify(name)} holds a NUL character`);
  const bytes = new TextEncoder().encode(name).length;
  if (bytes > MAX_IDENTIFIER_BYTES)
    throw new SinkSchemaError(
      `${what} ${JSON.stringify(name.slice(0, 80))} is ${bytes} bytes: PostgreSQL keeps ${MAX_IDENTIFIER_BYTES} and would silently cut it; rename it (a column), or set the table's name in the config (a dataset)`,
    );
  return `"${name.replace(/"/g, '""')}"`;
}

/** The table a dataset is applied to when the config names none: lower case, `.` and `-` as `_` ("us-counties" → "us_counties"). */
export function tableNameFor(dataset: string): string {
  return dataset.toLowerCase().replace(/[.-]/g, "_");
}

/** The SQL type of an artifact column, from the type the manifest records (Arrow's name for it). */
export function sqlTypeOf(arrowType: string, column: string): string {
  const t = /^Dictionary<[^,]+, (.+)>$/.exec(arrowType)?.[1] ?? arrowType;
  const mapped: Record<string, string> = {
    Utf8: "text",
    LargeUtf8: "text",
    Bool: "boolean",
    Int8: "smallint",
    Int16: "smallint",
    Int32: "integer",
    Int64: "bigint",
    Uint8: "smallint",
    Uint16: "integer",
    Uint32: "bigint",
    Uint64: "numeric(20)",
    Float32: "real",
    Float64: "double precision",
    Binary: "bytea",
    LargeBinary: "bytea",
    "Date32<DAY>": "date",
    "Date64<MILLISECOND>": "timestamp",
  };
  const sql = mapped[t];
  if (sql) return sql;
  if (/^Timestamp<\w+, .+>$/.test(t)) return "timestamptz";
  if (/^Timestamp<\w+>$/.test(t)) return "timestamp";
  if (/^(List|LargeList|FixedSizeList|Struct|Map)</.test(t)) return "jsonb";
  throw new SinkSchemaError(
    `column ${JSON.stringify(column)} has type ${arrowType}, which no sink column type holds yet (text, integers, floats, booleans, bytes, dates, timestamps, lists and structs as jsonb)`,
  );
}
