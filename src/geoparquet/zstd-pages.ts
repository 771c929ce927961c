import { compress, decompress, init } from "@bokuweb/zstd-wasm";
import { joinFooter, splitFooter } from "./footer.js";
import { appendPageIndexes } from "./page-index.js";
import { decodeStruct, encodeStruct, field, listField, setField, structField, T, ThriftError } from "./thrift.js";
import type { ThriftStruct } from "./thrift.js";

/**
 * zstd for the pages of a one-row-group file that parquet-wasm wrote uncompressed. parquet-wasm's own zstd runs at
 * ~55 MB/s here; zstd-wasm (the reference C library, level 1 like parquet-rs's default) at ~190 MB/s, and it was
 * most of the writer's time (docs/geoparquet.md). Each page body is compressed as one frame, its header says the
 * new size, and every offset and size that depends on it is recomputed: chunk metadata, row group totals, the
 * offset index. The layout stays parquet-rs's: chunks, column indexes, offset indexes, footer.
 */

export const ZSTD_LEVEL = 1;
const ZSTD_CODEC = 6;
const PAGE = { type: 1, uncompressed: 2, compressed: 3, crc: 4 } as const;
const PAGE_TYPE = { data: 0, dictionary: 2, dataV2: 3 } as const;
const META = { codec: 4, totalUncompressed: 6, totalCompressed: 7, dataPage: 9, dictionaryPage: 11 } as const;
const CHUNK = { meta: 3 } as const;
const RG = { columns: 1, totalBytes: 2, fileOffset: 5, totalCompressed: 6 } as const;

let ready: Promise<void> | undefined;
let loaded = false;
/** zstd-wasm loads its module asynchronously, once per thread. */
export function zstdReady(): Promise<void> {
  ready ??= init().then(() => {
    loaded = true;
  });
  return ready;
}

/** The content size a single zstd frame declares in its header (RFC 8878 3.1.1.1), or undefined. */
function frameContentSize(frame: Uint8Array): number | undefined {
  if (frame.length < 6 || frame[0] !== 0x28 || frame[1] !== 0xb5 || frame[2] !== 0x2f || frame[3] !== 0xfd)
    return undefined;
  const descriptor = frame[4] as number;
  const single = (descriptor & 0x20) !== 0;
  const sizeBytes = [single ? 1 : 0, 2, 4, 8][descriptor >> 6] as number;
  const at = 5 + (single ? 0 : 1) + ([0, 1, 2, 4][descriptor & 3] as number);
  if (sizeBytes === 0 || at + sizeBytes > frame.length) return undefined;
  let size = 0;
  for (let k = sizeBytes - 1; k >= 0; k--) size = size * 256 + (frame[at + k] as number);
  return sizeBytes === 2 ? size + 256 : size;
}

/**
 * A zstd page body decompressed by zstd-wasm (the C library: several times the JavaScript decoder's speed), when
 * its module is loaded and the frame declares exactly the `length` its page header says, so that nothing larger is
 * ever allocated; undefined otherwise (the caller uses another decoder, or gives up).
 */
export function zstdDecompress(body: Uint8Array, length: number): Uint8Array | undefined {
  if (!loaded || frameContentSize(body) !== length) return undefined;
  try {
    const out = decompress(body, { defaultHeapSize: length });
    return out.byteLength === length ? out : undefined;
  } catch {
    return undefined;
  }
}

const n = (v: unknown): number => (typeof v === "bigint" ? Number(v) : (v as number));

interface Rewritten {
  parts: Uint8Array[];
  uncompressed: number;
  compressed: number;
  dataPages: { offset: number; size: number }[];
}

/** One chunk's pages, from `start`, compressed; positions are where they will sit in the new file. */
function compressChunk(file: Uint8Array, start: number, end: number, at: number, meta: ThriftStruct): Rewritten {
  const out: Rewritten = { parts: [], uncompressed: 0, compressed: 0, dataPages: [] };
  let pos = start;
  let dataPage: number | undefined;
  let dictionaryPage: number | undefined;
  while (pos < end) {
    const { struct: header, end: bodyStart } = decodeStruct(file, pos, end);
    const type = field(header, PAGE.type);
    if (type === PAGE_TYPE.dataV2 || field(header, PAGE.crc) !== undefined)
      throw new ThriftError(`page type ${type} with crc ${field(header, PAGE.crc)}: not what parquet-wasm writes`);
    const size = n(field(header, PAGE.compressed));
    const body = compress(file.subarray(bodyStart, bodyStart + size), ZSTD_LEVEL);
    setField(header, PAGE.compressed, T.I32, body.byteLength);
    const head = encodeStruct(header);
    if (type === PAGE_TYPE.dictionary) dictionaryPage ??= at;
    if (type === PAGE_TYPE.data) {
      dataPage ??= at;
      out.dataPages.push({ offset: at, size: head.byteLength + body.byteLength });
    }
    out.parts.push(head, body);
    out.uncompressed += head.byteLength + n(field(header, PAGE.uncompressed));
    out.compressed += head.byteLength + body.byteLength;
    at += head.byteLength + body.byteLength;
    pos = bodyStart + size;
  }
  setField(meta, META.codec, T.I32, ZSTD_CODEC);
  setField(meta, META.totalUncompressed, T.I64, BigInt(out.uncompressed));
  setField(meta, META.totalCompressed, T.I64, BigInt(out.compressed));
  if (dataPage !== undefined) setField(meta, META.dataPage, T.I64, BigInt(dataPage));
  if (dictionaryPage !== undefined) setField(meta, META.dictionaryPage, T.I64, BigInt(dictionaryPage));
  return out;
}

function offsetIndex(blob: Uint8Array, pages: { offset: number; size: number }[]): Uint8Array {
  const { struct } = decodeStruct(blob);
  const locations = listField(struct, 1) as ThriftStruct[];
  if (locations.length !== pages.length)
    throw new ThriftError(`the offset index lists ${locations.length} pages, the chunk has ${pages.length}`);
  locations.forEach((loc, i) => {
    setField(loc, 1, T.I64, BigInt((pages[i] as { offset: number }).offset));
    setField(loc, 2, T.I32, (pages[i] as { size: number }).size);
  });
  return encodeStruct(struct);
}

/** An uncompressed one-row-group file → the same file with zstd pages. Call zstdReady() first. */
export function zstdPages(file: Uint8Array): Uint8Array {
  const { metadata } = splitFooter(file);
  const parts: Uint8Array[] = [file.subarray(0, 4)];
  let at = 4;
  const pages = new Map<ThriftStruct, { offset: number; size: number }[]>();
  for (const rg of listField(metadata, 4) as ThriftStruct[]) {
    let uncompressed = 0;
    let compressed = 0;
    const first = at;
    for (const chunk of listField(rg, RG.columns) as ThriftStruct[]) {
      const meta = structField(chunk, CHUNK.meta) as ThriftStruct;
      const start = n(field(meta, META.dictionaryPage) ?? field(meta, META.dataPage));
      const r = compressChunk(file, start, start + n(field(meta, META.totalCompressed)), at, meta);
      parts.push(...r.parts);
      at += r.compressed;
      uncompressed += r.uncompressed;
      compressed += r.compressed;
      pages.set(chunk, r.dataPages);
    }
    setField(rg, RG.totalBytes, T.I64, BigInt(uncompressed));
    setField(rg, RG.totalCompressed, T.I64, BigInt(compressed));
    if (field(rg, RG.fileOffset) !== undefined) setField(rg, RG.fileOffset, T.I64, BigInt(first));
  }
  const chunks = [...pages.keys()].map((chunk) => ({ chunk, file }));
  appendPageIndexes(chunks, parts, at, (blob, c) => offsetIndex(blob, pages.get(c.chunk) ?? []));
  return joinFooter({ body: parts, metadata });
}
