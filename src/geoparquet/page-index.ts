import { field, setField, T } from "./thrift.js";
import type { ThriftStruct } from "./thrift.js";

/**
 * Page indexes (column index, offset index) sit after the column chunks, all column indexes first, as parquet-rs
 * writes them. Whoever moves chunks (splice.ts, zstd-pages.ts) writes them anew with this: column indexes hold
 * values and are copied; offset indexes hold page positions and are rewritten by `moveOffsetIndex`.
 */

const CHUNK = { oiOffset: 4, oiLength: 5, ciOffset: 6, ciLength: 7 } as const;
const n = (v: unknown): number => (typeof v === "bigint" ? Number(v) : (v as number));

export interface IndexedChunk {
  /** The ColumnChunk whose index pointers are updated. */
  chunk: ThriftStruct;
  /** The file its current pointers refer into. */
  file: Uint8Array;
}

/** Appends the indexes of `chunks` to `out` from position `at`; returns the position after them. */
export function appendPageIndexes<C extends IndexedChunk>(
  chunks: C[],
  out: Uint8Array[],
  at: number,
  moveOffsetIndex: (blob: Uint8Array, c: C) => Uint8Array,
): number {
  const blobOf = (c: C, offset: number, length: number) => {
    const off = field(c.chunk, offset);
    return off === undefined ? undefined : c.file.subarray(n(off), n(off) + n(field(c.chunk, length)));
  };
  for (const c of chunks) {
    const blob = blobOf(c, CHUNK.ciOffset, CHUNK.ciLength);
    if (!blob) continue;
    setField(c.chunk, CHUNK.ciOffset, T.I64, BigInt(at));
    out.push(blob);
    at += blob.byteLength;
  }
  for (const c of chunks) {
    const old = blobOf(c, CHUNK.oiOffset, CHUNK.oiLength);
    if (!old) continue;
    const blob = moveOffsetIndex(old, c);
    setField(c.chunk, CHUNK.oiOffset, T.I64, BigInt(at));
    setField(c.chunk, CHUNK.oiLength, T.I32, blob.byteLength);
    out.push(blob);
    at += blob.byteLength;
  }
  return at;
}
