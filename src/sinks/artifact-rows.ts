import { DataType, Table } from "apache-arrow";
import type { Vector } from "apache-arrow";
import { keyText } from "../changes/change-items.js";
import { ascendingPlan, take } from "../geoparquet/take.js";
import { openRanged } from "../geoparquet/ranged-read.js";
import { readGeoParquet } from "../geoparquet/read.js";
import { storeSource } from "../geoparquet/store-source.js";
import type { ObjectStore } from "../store/types.js";
import type { ViewEntry } from "../views/reader.js";
import { ReadError } from "../views/reader.js";
import { partitionBatch } from "./partition-rows.js";
import type { PartitionBatch } from "./partition-rows.js";

/** The 8 MiB ranges a large artifact is read in (docs/large-partitions.md). */
const CHUNK = 8 * 2 ** 20;

/** An artifact opened for a sink: its data columns with their Arrow types, and its rows one row group at a time. */
export interface ArtifactRows {
  /** The data columns (not the geometry, not the bbox covering) with their Arrow types, in file order. */
  columns: { name: string; type: string }[];
  /** Whether the geometry column declares Z (GeoParquet `geometry_types` ending in " Z"). */
  hasZ: boolean;
  /** The geometry column's GeoParquet `geometry_types` (empty: any). */
  geometryTypes: string[];
  /**
   * Each row group, digested: the data columns in `columns` order, the WKB as stored, the content digests.
   * The artifact's sha256 is checked after the last group: a mismatch throws, so the caller's transaction rolls
   * back and nothing read from an altered artifact is kept.
   */
  batches(): AsyncGenerator<PartitionBatch>;
}

/**
 * `keep`: only the rows whose key (as keyText) it holds are decoded into batches (a delta: docs/sinks.md); every
 * byte is still read, so the sha256 check covers the whole artifact.
 */
export async function openArtifactRows(
  store: ObjectStore,
  entry: ViewEntry,
  key: string[],
  keep?: ReadonlySet<string>,
): Promise<ArtifactRows> {
  const where = store.locate(entry.artifact);
  const source = await storeSource(store, entry.artifact, CHUNK, entry.bytes);
  const file = await openRanged(source, where, { chunkBytes: CHUNK });
  const geometry = file.geo.primary_column;
  const meta = file.geo.columns[geometry];
  const covering = meta?.covering?.bbox?.xmin?.[0];
  const hasZ = (meta?.geometry_types ?? []).some((t) => / Z$/.test(t));
  const wanted = file.columns.filter((c) => c !== covering);
  const groups = file.rowGroups(wanted);
  // The first group tells the columns' types; an artifact with no rows has no group, and is small: read it whole.
  const first = await groups.next();
  const schemaOf = async (): Promise<Table> =>
    first.done
      ? (await readGeoParquet((await store.get(entry.artifact)).body, where, { columns: wanted })).table
      : first.value.table;
  const schema = (await schemaOf()).schema;
  const columns = schema.fields
    .filter((f) => f.name !== geometry && f.name !== covering)
    .map((f) => ({ name: f.name, type: String(f.type) }));
  for (const k of key)
    if (!columns.some((c) => c.name === k))
      throw new ReadError(
        `${where} has no column ${JSON.stringify(k)} of the dataset's key: it was written before the task named this key; re-run the partition, or sink without the key`,
      );
  const names = columns.map((c) => c.name);
  async function* batches(): AsyncGenerator<PartitionBatch> {
    const batch = async (table: Table) => partitionBatch(keep ? kept(table, key, keep) : table, key, names, geometry);
    if (!first.done) {
      yield await batch(first.value.table);
      for await (const g of groups) yield await batch(g.table);
    }
    const sha256 = await file.sha256();
    if (sha256 !== entry.sha256)
      throw new ReadError(
        `${where} reads as sha256 ${sha256.slice(0, 12)}…, not the ${entry.sha256.slice(0, 12)}… the view names: the artifact was altered in the store; nothing was applied`,
      );
  }
  return { columns, hasZ, geometryTypes: [...(meta?.geometry_types ?? [])], batches };
}

/** Arrow's own decoding of a Utf8 value (invalid bytes as U+FFFD), without finding its chunk again. */
const UTF8 = new TextDecoder();

/** 32-bit FNV-1a of bytes [from, to). */
function fnv1a(bytes: Uint8Array, from: number, to: number): number {
  let h = 0x811c9dc5;
  for (let i = from; i < to; i++) h = Math.imul(h ^ (bytes[i] as number), 0x01000193);
  return h >>> 0;
}

/** Bits in a delta's key filter: a few per kept key, so that most other rows miss it (128 KiB). */
const FILTER_BITS = 1 << 20;

/**
 * A bit per 20-bit FNV-1a of each kept key's UTF-8 bytes, once per delta (each row group asks again): a row whose
 * bit is clear is not kept, read from a typed array rather than looked up in a set; one whose bit is set is decoded
 * and looked up.
 */
const filters = new WeakMap<ReadonlySet<string>, Uint32Array>();
function keyFilter(keep: ReadonlySet<string>): Uint32Array {
  let bits = filters.get(keep);
  if (!bits) {
    const utf8 = new TextEncoder();
    bits = new Uint32Array(FILTER_BITS / 32);
    for (const k of keep) {
      const bytes = utf8.encode(k);
      const h = fnv1a(bytes, 0, bytes.length) & (FILTER_BITS - 1);
      (bits[h >>> 5] as number) |= 1 << (h & 31);
    }
    filters.set(keep, bits);
  }
  return bits;
}

/** The rows of a row group whose key is in `keep`, in file order. */
function kept(table: Table, key: string[], keep: ReadonlySet<string>): Table {
  const columns = key.map((k) => table.getChild(k) as { get(i: number): unknown });
  const rows: number[] = [];
  const only = columns.length === 1 ? table.getChild(key[0] as string) : undefined;
  if (only && DataType.isUtf8(only.type)) {
    // One text column (the usual key), its value its keyText: the key's bytes are hashed where they lie, and only a
    // row whose bit the filter has is decoded to a string and looked up (a delta keeps a few rows in a hundred).
    const bits = keyFilter(keep);
    let row = 0;
    for (const d of only.data) {
      const bytes = d.values as Uint8Array;
      const offsets = d.valueOffsets as Int32Array;
      const nulls = d.nullCount > 0;
      for (let i = 0; i < d.length; i++, row++) {
        if (nulls && !d.getValid(i)) continue; // a null key is never kept (its keyText is no row's)
        const from = offsets[i] as number;
        const to = offsets[i + 1] as number;
        const h = fnv1a(bytes, from, to) & (FILTER_BITS - 1);
        if ((bits[h >>> 5] as number) & (1 << (h & 31)) && keep.has(UTF8.decode(bytes.subarray(from, to))))
          rows.push(row);
      }
    }
  } else for (let i = 0; i < table.numRows; i++) if (keep.has(keyText(columns.map((c) => c.get(i))))) rows.push(i);
  const order = Uint32Array.from(rows);
  const plan = ascendingPlan(order);
  const out: Record<string, Vector> = Object.create(null) as Record<string, Vector>; // a column may be named "__proto__"
  for (const f of table.schema.fields) out[f.name] = take(table.getChild(f.name) as Vector, order, plan);
  return new Table(out);
}
