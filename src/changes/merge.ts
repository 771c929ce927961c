import { Binary, Bool, Table, vectorFromArray } from "apache-arrow";
import type { DataType, Vector } from "apache-arrow";
import { GeorefreshError } from "../errors.js";
import type { ErrorCode } from "../errors.js";
import { keyText } from "./change-items.js";

/** The column of a partial payload that marks a row as a deletion of its key (docs/changes.md). */
export const DELETED_COLUMN = "_deleted";

export class PartialPayloadError extends GeorefreshError {
  override readonly code: ErrorCode = "ComputeOutput";
}

/**
 * A partial payload (a delta feed) merged by key into the previous state: the rows it carries replace or add
 * their keys, rows with `_deleted` true remove theirs, every other key of the previous state is kept as it was.
 * Nothing is retired by absence. The result has the payload's columns (without `_deleted`) in its types; the
 * previous state must have every one of them but may lack none the payload has (a new column is null before).
 */
export function mergePartial(delta: Table, base: Table | undefined, key: readonly string[], where: string): Table {
  const names = delta.schema.fields.map((f) => f.name).filter((n) => n !== DELETED_COLUMN);
  const types = new Map<string, DataType>(delta.schema.fields.map((f) => [f.name, f.type as DataType]));
  const deleted = delta.getChild(DELETED_COLUMN);
  if (deleted && !(deleted.type instanceof Bool))
    throw new PartialPayloadError(`${where}: ${DELETED_COLUMN} must be a boolean column (true deletes the row's key)`);
  for (const k of key)
    if (!names.includes(k)) throw new PartialPayloadError(`${where}: the partial payload has no key column '${k}'`);
  const missing = base ? base.schema.fields.map((f) => f.name).filter((n) => !names.includes(n) && n !== "bbox") : [];
  if (missing.length)
    throw new PartialPayloadError(
      `${where}: the partial payload lacks column${missing.length > 1 ? "s" : ""} ${missing.join(", ")} that the previous version has; a delta carries every column of the rows it changes`,
    );
  const keyOf = (t: Table, i: number) => keyText(key.map((k) => (t.getChild(k) as Vector).get(i) as unknown));
  const touched = new Set<string>();
  for (let i = 0; i < delta.numRows; i++) touched.add(keyOf(delta, i));
  const kept: number[] = [];
  for (let i = 0; base && i < base.numRows; i++) if (!touched.has(keyOf(base, i))) kept.push(i);
  const carried: number[] = [];
  for (let i = 0; i < delta.numRows; i++) if (deleted?.get(i) !== true) carried.push(i);
  const columns: Record<string, Vector> = Object.create(null) as Record<string, Vector>; // a column may be named "__proto__"
  for (const name of names) {
    const from = base?.getChild(name);
    const to = delta.getChild(name) as Vector;
    const values = [...kept.map((i) => from?.get(i) ?? null), ...carried.map((i) => to.get(i) as unknown)];
    columns[name] = vectorFromArray(values, name === "geometry" ? new Binary() : (types.get(name) as DataType));
  }
  return new Table(columns);
}
