import { joinFooter, splitFooter } from "./footer.js";
import { appendPageIndexes } from "./page-index.js";
import { decodeStruct, encodeStruct, field, listField, setField, structField, T, text, ThriftError } from "./thrift.js";
import type { ThriftList, ThriftStruct } from "./thrift.js";

/**
 * Joins Parquet files of one row group each, written with the same schema and properties, into one file laid out
 * as parquet-rs lays out a multi-row-group file: every group's column chunks in order, then every column index,
 * then every offset index, then the footer. Row groups can thus be encoded on worker threads and the result is
 * byte-identical to encoding them one after another in one writer (docs/geoparquet.md).
 */

// Thrift field ids (parquet.thrift).
const FILE = { numRows: 3, rowGroups: 4, keyValue: 5 } as const;
const RG = { columns: 1, fileOffset: 5, ordinal: 7 } as const;
const CHUNK = { fileOffset: 2, meta: 3, oiOffset: 4, oiLength: 5, ciOffset: 6, ciLength: 7 } as const;
const META = { dataPage: 9, indexPage: 10, dictionaryPage: 11, bloomOffset: 14 } as const;

interface Part {
  bytes: Uint8Array;
  metadata: ThriftStruct;
  group: ThriftStruct;
  chunks: ThriftStruct[];
  /** Where the column chunks end: the first index or the footer. */
  chunksEnd: number;
}

const i64 = (v: unknown): number => (typeof v === "bigint" ? Number(v) : typeof v === "number" ? v : NaN);

function readPart(bytes: Uint8Array, k: number): Part {
  const { body, metadata } = splitFooter(bytes);
  const groups = listField(metadata, FILE.rowGroups) as ThriftStruct[];
  if (groups.length !== 1) throw new ThriftError(`part ${k} has ${groups.length} row groups, expected 1`);
  const group = groups[0] as ThriftStruct;
  const chunks = listField(group, RG.columns) as ThriftStruct[];
  let chunksEnd = body.byteLength;
  for (const c of chunks)
    for (const id of [CHUNK.ciOffset, CHUNK.oiOffset]) {
      const at = field(c, id);
      if (at !== undefined) chunksEnd = Math.min(chunksEnd, i64(at));
    }
  return { bytes, metadata, group, chunks, chunksEnd };
}

/** Moves every absolute offset of a chunk's metadata by `delta` bytes. */
export function shiftChunk(chunk: ThriftStruct, delta: number): void {
  const fo = field(chunk, CHUNK.fileOffset); // deprecated; parquet-rs writes 0, which stays 0
  if (typeof fo === "bigint" && fo > 0n) setField(chunk, CHUNK.fileOffset, T.I64, fo + BigInt(delta));
  const meta = structField(chunk, CHUNK.meta);
  if (!meta) return;
  for (const id of [META.dataPage, META.indexPage, META.dictionaryPage, META.bloomOffset]) {
    const v = field(meta, id);
    if (typeof v === "bigint") setField(meta, id, T.I64, v + BigInt(delta));
  }
}

/** An offset index with each page location moved by `delta`. */
function shiftOffsetIndex(blob: Uint8Array, delta: number): Uint8Array {
  const { struct } = decodeStruct(blob);
  for (const loc of listField(struct, 1) as ThriftStruct[]) {
    const v = field(loc, 1);
    if (typeof v === "bigint") setField(loc, 1, T.I64, v + BigInt(delta));
  }
  return encodeStruct(struct);
}

/** A part's page indexes, copied out of it so that the part itself can be let go once its chunks are written. */
function detachIndexes(chunks: ThriftStruct[], file: Uint8Array): Uint8Array {
  const blobs: Uint8Array[] = [];
  let at = 0;
  for (const c of chunks)
    for (const [offset, length] of [
      [CHUNK.ciOffset, CHUNK.ciLength],
      [CHUNK.oiOffset, CHUNK.oiLength],
    ] as const) {
      const off = field(c, offset);
      if (off === undefined) continue;
      const len = i64(field(c, length));
      blobs.push(file.subarray(i64(off), i64(off) + len));
      setField(c, offset, T.I64, BigInt(at));
      at += len;
    }
  return Buffer.concat(blobs);
}

/**
 * The splice as a stream: `add` each one-group file in order and write what it returns; `finish` gives the page
 * indexes and the footer. Only the groups' metadata and page indexes are kept, never their data.
 */
export class RowGroupSplicer {
  private pos = 4;
  private readonly kept: { metadata: ThriftStruct; group: ThriftStruct; chunks: ThriftStruct[]; delta: number }[] = [];
  private readonly indexes: { chunk: ThriftStruct; file: Uint8Array; delta: number }[] = [];
  private empty: Uint8Array | undefined;

  /** The bytes to write for this part: the file's magic first, then its column chunks. */
  add(file: Uint8Array): Uint8Array[] {
    const k = this.kept.length;
    if (this.empty) throw new ThriftError("an empty part can only be spliced alone");
    if (k === 0 && listField(splitFooter(file).metadata, FILE.rowGroups).length === 0) {
      this.empty = file; // an empty table: no row group to move
      return [];
    }
    const p = readPart(file, k);
    const delta = this.pos - 4;
    const out = k === 0 ? [file.subarray(0, 4), file.subarray(4, p.chunksEnd)] : [file.subarray(4, p.chunksEnd)];
    this.pos += p.chunksEnd - 4;
    const idx = detachIndexes(p.chunks, file);
    for (const chunk of p.chunks) this.indexes.push({ chunk, file: idx, delta });
    this.kept.push({ metadata: p.metadata, group: p.group, chunks: p.chunks, delta });
    return out;
  }

  /** The page indexes and the footer; `edit` may change the merged FileMetaData first. */
  finish(edit?: (metadata: ThriftStruct) => void): Uint8Array[] {
    if (this.empty) {
      const file = splitFooter(this.empty);
      orderKeyValues(file.metadata);
      edit?.(file.metadata);
      return [joinFooter(file)];
    }
    if (this.kept.length === 0) throw new ThriftError("nothing to splice");
    const out: Uint8Array[] = [];
    appendPageIndexes(this.indexes, out, this.pos, (blob, c) => shiftOffsetIndex(blob, c.delta));
    const groups = this.kept.map((p, k) => {
      for (const c of p.chunks) shiftChunk(c, p.delta);
      const fo = field(p.group, RG.fileOffset);
      if (typeof fo === "bigint") setField(p.group, RG.fileOffset, T.I64, fo + BigInt(p.delta));
      if (field(p.group, RG.ordinal) !== undefined) setField(p.group, RG.ordinal, T.I16, k);
      return p.group;
    });
    const metadata = (this.kept[0] as (typeof this.kept)[0]).metadata;
    const rows = this.kept.reduce((n, p) => n + BigInt(field(p.metadata, FILE.numRows) as bigint), 0n);
    setField(metadata, FILE.numRows, T.I64, rows);
    (metadata.fields.find((f) => f.id === FILE.rowGroups)?.value as ThriftList).items = groups;
    orderKeyValues(metadata);
    edit?.(metadata);
    // joinFooter lays out body + footer + length + magic; with an empty body it gives the tail alone.
    out.push(joinFooter({ body: [], metadata }));
    return out;
  }
}

/**
 * The footer's key-value metadata in one order: by key, with the embedded Arrow schema last, as the writer puts
 * it. parquet-wasm takes the pairs as a map and writes them in its hash map's order, which changes from process to
 * process once there are two (geo and georefresh:dropped): the same rows, other bytes.
 */
function orderKeyValues(metadata: ThriftStruct): void {
  const kv = metadata.fields.find((f) => f.id === FILE.keyValue)?.value as ThriftList | undefined;
  if (!kv) return;
  const name = (e: ThriftStruct) => text(field(e, 1)) ?? "";
  const rank = (e: ThriftStruct) => (name(e) === "ARROW:schema" ? 1 : 0);
  (kv.items as ThriftStruct[]).sort(
    (a, b) => rank(a) - rank(b) || (name(a) < name(b) ? -1 : name(a) > name(b) ? 1 : 0),
  );
}

/** `edit` may change the merged FileMetaData before it is written (2.0's annotation, native.ts). */
export function spliceRowGroups(files: Uint8Array[], edit?: (metadata: ThriftStruct) => void): Uint8Array {
  if (files.length === 0) throw new ThriftError("nothing to splice");
  const splicer = new RowGroupSplicer();
  const out = files.flatMap((f) => splicer.add(f));
  out.push(...splicer.finish(edit));
  return Buffer.concat(out);
}
