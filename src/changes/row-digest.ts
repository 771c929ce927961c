import type { DataType, Table } from "apache-arrow";
import xxhash from "xxhash-wasm";
import { binaryColumn } from "../geoparquet/columns.js";
import { CanonicalBytes, encoderFor } from "./canonical.js";
import { xxh64Batch } from "./xxh64/batch.js";
import type { Encode } from "./canonical.js";

type Hasher = Awaited<ReturnType<typeof xxhash>>;
let hasher: Hasher | undefined;
let loading: Promise<Hasher> | undefined;

/** Loads the hash (WebAssembly); call once before digesting. */
export async function digestReady(): Promise<void> {
  hasher ??= await (loading ??= xxhash());
}

function h64(bytes: Uint8Array, seed: bigint): bigint {
  if (!hasher) throw new Error("digestReady() was not awaited");
  return hasher.h64Raw(bytes, seed);
}

/** Seeds keep a key, an attribute row and a geometry with the same bytes apart. */
const SEED = { key: 0x6b6579n, attributes: 0x61747472n, geometry: 0x67656f6dn, names: 0x6e616d65n } as const;

/** What a partition's rows are, one 64-bit XXH64 per row and part: all a change set is computed from. */
export interface RowDigests {
  rows: number;
  /** The natural key's canonical bytes, hashed (rows match across versions by it). */
  key: BigUint64Array;
  /** Every attribute but the key, the geometry and its covering, in column-name order. */
  attributes: BigUint64Array;
  /** The geometry's WKB as stored (our writer's canonical little-endian ISO WKB). */
  geometry: BigUint64Array;
  attributeNames: string[];
  /**
   * Per row, per attribute (in attributeNames' order): 32 bits of FNV-1a over its canonical bytes, to name which
   * attributes changed without reading the rows again (the attribute digest, not these, decides that a row changed).
   */
  columnHashes: Uint32Array;
  /** Each row's key as canonical bytes (`keyOffsets[row]` to `keyOffsets[row + 1]`): changed keys need no re-read. */
  keyBytes: Uint8Array;
  keyOffsets: Int32Array;
  /** The key columns' Arrow types, as the artifact holds them. */
  keyTypes: DataType[];
  /** Rows whose key has a null part (the first few) and how many there are. */
  nullKeyRows: number[];
  nullKeys: number;
}

/** The columns a digest reads: the key's, the geometry, and the ones that are not attributes (the covering). */
export interface DigestColumns {
  key: readonly string[];
  geometry: string;
  skip: readonly string[];
  /** Only the content digests (attributes, geometry): no key hash, key bytes or per-column hashes (a sink's need). */
  contentOnly?: boolean;
}

const hex = (x: bigint) => x.toString(16).padStart(16, "0");

/** A row's content digest as docs/changes.md defines it: attributes then geometry, 32 hex digits. */
export function rowDigest(d: RowDigests, row: number): string {
  return hex(d.attributes[row] as bigint) + hex(d.geometry[row] as bigint);
}

/**
 * Digests a partition row group by row group (as read-back validation reads it), so the change set needs no
 * second copy of any table: 24 bytes a row.
 */
export class RowDigester {
  private readonly key: BigUint64Array;
  private readonly attributes: BigUint64Array;
  private readonly geometry: BigUint64Array;
  private columnHashes = new Uint32Array(0);
  private keyBytes = new Uint8Array(1 << 16);
  private keyAt = 0;
  private readonly keyOffsets: Int32Array;
  private keyTypes: DataType[] = [];
  private names: string[] | undefined;
  private attributeSeed = 0n;
  private nullKeyRows: number[] = [];
  private nullKeys = 0;
  private at = 0;
  private readonly scratch = new CanonicalBytes();
  private readonly keyScratch = new CanonicalBytes();
  private rowEnds = new Int32Array(1);

  constructor(
    private readonly columns: DigestColumns,
    rows: number,
  ) {
    this.key = new BigUint64Array(rows);
    this.attributes = new BigUint64Array(rows);
    this.geometry = new BigUint64Array(rows);
    this.keyOffsets = new Int32Array(rows + 1);
  }

  group(table: Table): void {
    const { key, geometry, skip } = this.columns;
    const fields = table.schema.fields.map((f) => f.name);
    const names = fields.filter((n) => n !== geometry && !key.includes(n) && !skip.includes(n)).sort();
    if (!this.names) {
      this.names = names;
      this.columnHashes = new Uint32Array(this.key.length * names.length);
      this.attributeSeed = h64(new TextEncoder().encode(JSON.stringify(names)), SEED.names) ^ SEED.attributes;
    }
    const vector = (name: string) => {
      const v = table.getChild(name);
      if (!v) throw new Error(`column '${name}' is not in the artifact`);
      return v;
    };
    if (!this.keyTypes.length) this.keyTypes = key.map((k) => vector(k).type as DataType);
    const keys: Encode[] = key.map((n) => encoderFor(vector(n)));
    const nullable = key.map(vector).filter((v) => v.nullCount > 0);
    const attrs: Encode[] = names.map((n) => encoderFor(vector(n)));
    const wkb = binaryColumn(vector(geometry), geometry);
    const rows = table.numRows;
    if (this.at + rows > this.key.length) throw new Error("more rows than the footer declared");
    const out = this.scratch;
    // Each row's canonical attribute bytes end to end, then every row hashed in one call per column (xxh64/).
    out.reset();
    const ends = this.ends(rows);
    if (this.columns.contentOnly) {
      for (let i = 0; i < rows; i++) {
        for (const a of attrs) a(i, out);
        ends[i + 1] = out.at;
      }
    } else {
      const keyOut = this.keyScratch;
      for (let i = 0; i < rows; i++) {
        const row = this.at + i;
        keyOut.reset();
        for (const k of keys) k(i, keyOut);
        const bytes = keyOut.bytes();
        if (this.keyAt + bytes.length > this.keyBytes.length) {
          const grown = new Uint8Array(Math.max(this.keyBytes.length * 2, this.keyAt + bytes.length));
          grown.set(this.keyBytes.subarray(0, this.keyAt));
          this.keyBytes = grown;
        }
        this.keyBytes.set(bytes, this.keyAt);
        this.keyAt += bytes.length;
        this.keyOffsets[row + 1] = this.keyAt;
        if (nullable.length && nullable.some((v) => !v.isValid(i)) && this.nullKeys++ < 10) this.nullKeyRows.push(row);
        const hashes = this.columnHashes;
        const base = row * attrs.length;
        for (let c = 0; c < attrs.length; c++) {
          const start = out.at;
          (attrs[c] as Encode)(i, out);
          hashes[base + c] = out.fnv1a(start);
        }
        ends[i + 1] = out.at;
      }
      xxh64Batch(
        this.keyBytes,
        this.keyOffsets.subarray(this.at, this.at + rows + 1),
        rows,
        SEED.key,
        this.key,
        this.at,
      );
    }
    xxh64Batch(out.bytes(), ends, rows, this.attributeSeed, this.attributes, this.at);
    xxh64Batch(wkb.data, wkb.offsets, rows, SEED.geometry, this.geometry, this.at);
    this.at += rows;
  }

  /** Where each row's attribute bytes end (index 0 is 0), for a group of `rows`. */
  private ends(rows: number): Int32Array {
    if (this.rowEnds.length < rows + 1) this.rowEnds = new Int32Array(rows + 1);
    return this.rowEnds;
  }

  finish(): RowDigests {
    return {
      rows: this.at,
      key: this.key.subarray(0, this.at),
      attributes: this.attributes.subarray(0, this.at),
      geometry: this.geometry.subarray(0, this.at),
      attributeNames: this.names ?? [],
      columnHashes: this.columnHashes.subarray(0, this.at * (this.names?.length ?? 0)),
      keyBytes: this.keyBytes.subarray(0, this.keyAt),
      keyOffsets: this.keyOffsets.subarray(0, this.at + 1),
      keyTypes: this.keyTypes,
      nullKeyRows: this.nullKeyRows,
      nullKeys: this.nullKeys,
    };
  }
}
