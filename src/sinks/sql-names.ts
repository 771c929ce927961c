import { SinkSchemaError } from "./errors.js";

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
