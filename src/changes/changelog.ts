import { DataType, List, Field, Table, Utf8, tableToIPC, vectorFromArray } from "apache-arrow";
import type { Vector } from "apache-arrow";
import * as parquet from "parquet-wasm";
import type { RangedFile } from "../geoparquet/ranged-read.js";
import { zstdPages, zstdReady } from "../geoparquet/zstd-pages.js";
import type { ChangeCounts, ChangeKind, DigestDiff } from "./diff.js";
import { decodeCanonical } from "./canonical.js";
import { rowDigest } from "./row-digest.js";
import type { RowDigests } from "./row-digest.js";
import { rowsAt } from "./rows-at.js";

/** One row of a changelog: a key and one kind of change (a key whose geometry and attributes changed has two). */
export interface ChangeRow {
  key: unknown[];
  change: ChangeKind;
  before_digest: string | null;
  after_digest: string | null;
  /** The attributes that changed (attributes_changed), the geometry column (geometry_changed), else empty. */
  columns: string[];
  /** The after geometry's WKB, or the before one's for a removal (only when asked for). */
  geometry?: Uint8Array;
}

export interface Changelog {
  key: string[];
  keyTypes: DataType[];
  counts: ChangeCounts;
  rows: ChangeRow[];
}

/** One side of a change set: the digests of a version and a way to read some of its rows again. */
export interface Side {
  digests: RowDigests;
  open(): Promise<RangedFile>;
  geometry: string;
}

const KIND_ORDER: Record<ChangeKind, number> = { added: 0, removed: 1, geometry_changed: 2, attributes_changed: 3 };

/** Orders two values of a key part: numbers and bigints by value, strings by code unit, null first. */
export function compareKeyValues(x: unknown, y: unknown): number {
  if (x === y) return 0;
  if (x === null || x === undefined) return -1;
  if (y === null || y === undefined) return 1;
  if (typeof x === typeof y || (typeof x !== "string" && typeof y !== "string"))
    return (x as number) < (y as number) ? -1 : (x as number) > (y as number) ? 1 : 0;
  return String(x) < String(y) ? -1 : 1;
}

/** Orders keys part by part (compareKeyValues). */
export function compareKeys(a: readonly unknown[], b: readonly unknown[]): number {
  for (let i = 0; i < a.length; i++) {
    const c = compareKeyValues(a[i], b[i]);
    if (c) return c;
  }
  return 0;
}

/**
 * A change set's rows: the keys' values and, for attribute changes, which attributes differ (their canonical
 * bytes compared), read back from both versions for the changed rows only. Sorted by key, then kind.
 */
export async function changelogOf(
  diff: DigestDiff,
  key: string[],
  before: Side | undefined,
  after: Side,
  options: { geometry?: boolean } = {},
): Promise<Changelog> {
  const names = (s: Side | undefined) => s?.digests.attributeNames ?? [];
  const shared = names(after).filter((n) => names(before).includes(n));
  const onlyOne = [...names(after), ...names(before)].filter((n) => !shared.includes(n)).sort();
  // Keys come from the digests' canonical bytes; rows are read again (changed ones only) for the geometries when
  // asked, or for keys of a type the canonical bytes do not give back as Arrow would.
  const fromDigests = keyDecodable(after.digests) && (!before || keyDecodable(before.digests));
  const reread = options.geometry || !fromDigests;
  const afterRows = reread
    ? await rowsAt(
        await after.open(),
        diff.changes.filter((c) => c.after !== undefined).map((c) => c.after as number),
        key,
        options.geometry ? [after.geometry] : [],
      )
    : undefined;
  const beforeRows =
    reread && before
      ? await rowsAt(
          await before.open(),
          diff.changes.filter((c) => c.after === undefined).map((c) => c.before as number),
          key,
          options.geometry ? [before.geometry] : [],
        )
      : undefined;
  const columnHash = (s: Side, row: number, name: string) => {
    const d = s.digests;
    return d.columnHashes[row * d.attributeNames.length + d.attributeNames.indexOf(name)];
  };
  const rows: ChangeRow[] = [];
  for (const c of diff.changes) {
    const a = c.after === undefined ? undefined : afterRows?.rows.get(c.after);
    const b = c.before === undefined ? undefined : beforeRows?.rows.get(c.before);
    const keyValues = !fromDigests
      ? ((a ?? b)?.key ?? [])
      : c.after !== undefined
        ? keyOf(after.digests, c.after)
        : keyOf((before as Side).digests, c.before as number);
    const wkb = (a ?? b)?.raw[0];
    const base = {
      key: keyValues,
      ...(wkb instanceof Uint8Array ? { geometry: wkb } : {}),
      before_digest: c.before === undefined || !before ? null : rowDigest(before.digests, c.before),
      after_digest: c.after === undefined ? null : rowDigest(after.digests, c.after),
    };
    if (c.before === undefined) rows.push({ ...base, change: "added", columns: [] });
    else if (c.after === undefined) rows.push({ ...base, change: "removed", columns: [] });
    else {
      if (c.geometry) rows.push({ ...base, change: "geometry_changed", columns: [after.geometry] });
      if (c.attributes) {
        const changed = shared.filter(
          (n) => columnHash(after, c.after as number, n) !== columnHash(before as Side, c.before as number, n),
        );
        rows.push({ ...base, change: "attributes_changed", columns: [...changed, ...onlyOne].sort() });
      }
    }
  }
  rows.sort((x, y) => compareKeys(x.key, y.key) || KIND_ORDER[x.change] - KIND_ORDER[y.change]);
  const keyTypes = after.digests.keyTypes.length ? after.digests.keyTypes : (before?.digests.keyTypes ?? []);
  return { key, keyTypes, counts: diff.counts, rows };
}

/** Key columns whose values come back from their canonical bytes as Arrow would give them. */
export function keyDecodable(d: RowDigests): boolean {
  return d.keyTypes.every((t) => {
    const v = DataType.isDictionary(t) ? (t as unknown as { dictionary: DataType }).dictionary : t;
    return DataType.isUtf8(v) || DataType.isInt(v) || DataType.isFloat(v) || DataType.isBool(v);
  });
}

/** A key's values from a side's digests, typed as its columns (64-bit integers as bigint). */
function keyOf(d: RowDigests, row: number): unknown[] {
  const values = decodeCanonical(d.keyBytes.subarray(d.keyOffsets[row], d.keyOffsets[row + 1]));
  return values.map((v, i) => {
    const t = d.keyTypes[i] as DataType;
    return typeof v === "number" && DataType.isInt(t) && (t as unknown as { bitWidth: number }).bitWidth === 64
      ? BigInt(v)
      : v;
  });
}

/** A dictionary-encoded key column is written as its values' type. */
export const plainType = (t: DataType | undefined): DataType =>
  t === undefined ? new Utf8() : DataType.isDictionary(t) ? (t as unknown as { dictionary: DataType }).dictionary : t;

/** The changelog as an Arrow table: the key's columns, change, before_digest, after_digest, columns. */
export function changelogTable(log: Changelog): Table {
  const columns: Record<string, Vector> = Object.create(null) as Record<string, Vector>; // a column may be named "__proto__"
  log.key.forEach((name, i) => {
    columns[name] = vectorFromArray(
      log.rows.map((r) => r.key[i] ?? null),
      plainType(log.keyTypes[i]),
    );
  });
  const text = (values: (string | null)[]) => vectorFromArray(values, new Utf8());
  columns.change = text(log.rows.map((r) => r.change));
  columns.before_digest = text(log.rows.map((r) => r.before_digest));
  columns.after_digest = text(log.rows.map((r) => r.after_digest));
  columns.columns = vectorFromArray(
    log.rows.map((r) => r.columns),
    new List(new Field("item", new Utf8(), true)),
  );
  return new Table(columns);
}

/** The changelog's Parquet bytes: the same change set always gives the same bytes (zstd pages, fixed writer). */
export async function encodeChangelog(log: Changelog): Promise<Uint8Array> {
  return encodeChangelogTable(changelogTable(log));
}

/** A changelog table's Parquet bytes (changelogTable's, or first-changelog.ts's columns). */
export async function encodeChangelogTable(table: Table): Promise<Uint8Array> {
  await zstdReady();
  const props = new parquet.WriterPropertiesBuilder()
    .setCreatedBy("georefresh changelog 1")
    .setCompression(parquet.Compression.UNCOMPRESSED)
    .setDictionaryEnabled(true)
    .setMaxRowGroupSize(65_536)
    .build();
  return zstdPages(parquet.writeParquet(parquet.Table.fromIPCStream(tableToIPC(table, "stream")), props));
}
