import { joinFooter, splitFooter } from "./footer.js";
import { appendPageIndexes } from "./page-index.js";
import { decodeStruct, encodeStruct, field, listField, setField, structField, T, ThriftError } from "./thrift.js";
import type { ThriftList, ThriftStruct } from "./thrift.js";

/**
 * Joins Parquet files of one row group each, written with the same schema and properties, into one file laid out
 * as parquet-rs lays out a multi-row-group file: every group's column chunks in order, then every column index,
 * then every offset index, then the footer. Row groups can thus be encoded on worker threads and the result is
 * byte-identical to encoding them one after another in one writer (docs/geoparquet.md).
 */

// Thrift field ids (parquet.thrift).
const FILE = { numRows: 3, rowGroups: 4 } as const;
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
function shiftChunk(chunk: ThriftStruct, delta: number): void {
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

/** `edit` may change the merged FileMetaData before it is written (2.0's annotation, native.ts). */
export function spliceRowGroups(files: Uint8Array[], edit?: (metadata: ThriftStruct) => void): Uint8Array {
  if (files.length === 0) throw new ThriftError("nothing to splice");
  if (files.length === 1 && listField(splitFooter(files[0] as Uint8Array).metadata, FILE.rowGroups).length === 0) {
    const file = splitFooter(files[0] as Uint8Array); // an empty table: no row group to move
    edit?.(file.metadata);
    return joinFooter(file);
  }
  const parts = files.map(readPart);
  const out: Uint8Array[] = [(parts[0] as Part).bytes.subarray(0, 4)]; // "PAR1"
  let pos = 4;
  const deltas: number[] = [];
  for (const p of parts) {
    out.push(p.bytes.subarray(4, p.chunksEnd));
    deltas.push(pos - 4);
    pos += p.chunksEnd - 4;
  }
  const chunks = parts.flatMap((p, k) =>
    p.chunks.map((chunk) => ({ chunk, file: p.bytes, delta: deltas[k] as number })),
  );
  pos = appendPageIndexes(chunks, out, pos, (blob, c) => shiftOffsetIndex(blob, c.delta));
  const groups = parts.map((p, k) => {
    for (const c of p.chunks) shiftChunk(c, deltas[k] as number);
    const fo = field(p.group, RG.fileOffset);
    if (typeof fo === "bigint") setField(p.group, RG.fileOffset, T.I64, fo + BigInt(deltas[k] as number));
    if (field(p.group, RG.ordinal) !== undefined) setField(p.group, RG.ordinal, T.I16, k);
    return p.group;
  });
  const metadata = (parts[0] as Part).metadata;
  const rows = parts.reduce((n, p) => n + BigInt(field(p.metadata, FILE.numRows) as bigint), 0n);
  setField(metadata, FILE.numRows, T.I64, rows);
  (metadata.fields.find((f) => f.id === FILE.rowGroups)?.value as ThriftList).items = groups;
  edit?.(metadata);
  return joinFooter({ body: out, metadata });
}
