import { createHash } from "node:crypto";
import { tableFromIPC } from "apache-arrow";
import type { Table } from "apache-arrow";
import * as parquet from "parquet-wasm";
import { plain } from "./canonical.js";
import type { ChangeRow } from "./changelog.js";
import type { ChangeKind } from "./diff.js";

/** One changed key as the outbox announces it (docs/changes.md): what changed, and its own idempotency key. */
export interface ChangeItem {
  /** `<dataset>:<region>:<key>:<change digest>`: the same change is one key however many runs find it. */
  idempotency_key: string;
  /** The key's value, or an object of its columns. */
  id: unknown;
  change: ChangeKind[];
  columns: string[];
  before_digest: string | null;
  after_digest: string | null;
}

/**
 * The change digest: the before and after row digests, hashed in that order, so A→B, B→A and a first A are three
 * changes, while one change found by two runs (or by a correction) is one.
 */
export function changeDigest(before: string | null, after: string | null): string {
  return createHash("sha256")
    .update(`${before ?? ""}>${after ?? ""}`)
    .digest("hex")
    .slice(0, 32);
}

/** A key in an idempotency key: one column's value as text, several as their JSON array. */
export function keyText(values: readonly unknown[]): string {
  const v = values.map(plain);
  return v.length === 1 ? String(v[0]) : JSON.stringify(v);
}

/** The columns of a changelog that are not its key's. */
const RESERVED = ["change", "before_digest", "after_digest", "columns"];

/** A changelog's Parquet bytes as a table, and its key columns (every column that is not its own). */
function changelogTable(bytes: Uint8Array): { table: Table; key: string[] } {
  const table = tableFromIPC(parquet.readParquet(bytes).intoIPCStream());
  return { table, key: table.schema.fields.map((f) => f.name).filter((n) => !RESERVED.includes(n)) };
}

/** A changelog's key columns and rows, from its Parquet bytes. */
export function readChangelog(bytes: Uint8Array): { key: string[]; rows: ChangeRow[] } {
  const { table, key } = changelogTable(bytes);
  const col = (n: string) => {
    const v = table.getChild(n);
    if (!v) throw new Error(`the changelog has no column '${n}'`);
    return v;
  };
  const keys = key.map(col);
  const [change, before, after, columns] = ["change", "before_digest", "after_digest", "columns"].map(col);
  const rows = Array.from({ length: table.numRows }, (_, i) => ({
    key: keys.map((k) => k.get(i) as unknown),
    change: change?.get(i) as ChangeKind,
    before_digest: (before?.get(i) as string | null) ?? null,
    after_digest: (after?.get(i) as string | null) ?? null,
    columns: [...((columns?.get(i) as Iterable<string> | null) ?? [])],
  }));
  return { key, rows };
}

/**
 * A changelog's key values and kinds only: what a sink's delta reads (docs/sinks.md), without a digest or a
 * column list per row (a list cell is a vector of its own to read).
 */
export function readChangelogKeys(bytes: Uint8Array): {
  key: string[];
  rows: { key: unknown[]; change: ChangeKind }[];
} {
  const { table, key } = changelogTable(bytes);
  const keys = key.map((n) => table.getChild(n) as { get(i: number): unknown });
  const change = table.getChild("change");
  if (!change) throw new Error(`the changelog has no column 'change'`);
  const rows = new Array<{ key: unknown[]; change: ChangeKind }>(table.numRows);
  for (let i = 0; i < rows.length; i++)
    rows[i] = { key: keys.map((k) => k.get(i)), change: change.get(i) as ChangeKind };
  return { key, rows };
}

/** A changelog's rows as announced items: one per key (its rows are adjacent: the changelog is sorted by key). */
export function changeItems(dataset: string, region: string, key: readonly string[], rows: ChangeRow[]): ChangeItem[] {
  const items: ChangeItem[] = [];
  let last: { text: string; item: ChangeItem } | undefined;
  for (const r of rows) {
    const text = keyText(r.key);
    if (last && last.text === text) {
      last.item.change.push(r.change);
      last.item.columns = [...new Set([...last.item.columns, ...r.columns])].sort();
      continue;
    }
    const values = r.key.map(plain);
    const item: ChangeItem = {
      idempotency_key: `${dataset}:${region}:${text}:${changeDigest(r.before_digest, r.after_digest)}`,
      id: key.length === 1 ? values[0] : Object.fromEntries(key.map((k, i) => [k, values[i]])),
      change: [r.change],
      columns: [...r.columns],
      before_digest: r.before_digest,
      after_digest: r.after_digest,
    };
    items.push(item);
    last = { text, item };
  }
  return items;
}
