import { parquetMetadata } from "hyparquet";
import type { CompressionCodec } from "hyparquet";
import { compressors } from "hyparquet-compressors";
import { zstdDecompress } from "./zstd-pages.js";

/**
 * The longest value in each dictionary-encoded BYTE_ARRAY column chunk's dictionary, by row group and top-level
 * column: what lets a reader bound what a chunk can decode to (rows × longest value) before decoding it. The
 * footer's sizes cannot: a dictionary holding one 10 MB string, repeated in every row, declares 10 MB and
 * decodes to rows × 10 MB. A chunk whose dictionary cannot be read is left out (the caller then stays cautious).
 */
export function longestDictionaryValues(bytes: Uint8Array, maxPageBytes: number): Map<string, number>[] {
  const meta = parquetMetadata(bytes, { geoparquet: false }); // a view: the file is not copied
  return meta.row_groups.map((group) => {
    const longest = new Map<string, number>();
    for (const chunk of group.columns) {
      const m = chunk.meta_data;
      if (!m || m.type !== "BYTE_ARRAY" || m.dictionary_page_offset === undefined) continue;
      const top = m.path_in_schema[0] ?? "";
      const value = dictionaryLongest(bytes, Number(m.dictionary_page_offset), m.codec, maxPageBytes);
      if (value === undefined) continue;
      longest.set(top, Math.max(longest.get(top) ?? 0, value));
    }
    return longest;
  });
}

const DICTIONARY_PAGE = 2;

function dictionaryLongest(
  bytes: Uint8Array,
  offset: number,
  codec: CompressionCodec,
  maxPageBytes: number,
): number | undefined {
  try {
    const header = readPageHeader(bytes, offset);
    if (header.type !== DICTIONARY_PAGE || header.uncompressed > maxPageBytes || header.numValues < 0) return undefined;
    const body = bytes.subarray(header.end, header.end + header.compressed);
    const page = codec === "UNCOMPRESSED" ? body : decompress(codec, body, header.uncompressed);
    if (!page || page.byteLength !== header.uncompressed) return undefined;
    // PLAIN-encoded BYTE_ARRAY values: a 4-byte little-endian length, then the bytes.
    const view = new DataView(page.buffer, page.byteOffset, page.byteLength);
    let longest = 0;
    for (let i = 0, at = 0; i < header.numValues; i++) {
      if (at + 4 > page.byteLength) return undefined;
      const length = view.getUint32(at, true);
      at += 4 + length;
      if (at > page.byteLength) return undefined;
      if (length > longest) longest = length;
    }
    return longest;
  } catch {
    return undefined;
  }
}

function decompress(codec: CompressionCodec, input: Uint8Array, length: number): Uint8Array | undefined {
  const fast = codec === "ZSTD" ? zstdDecompress(input, length) : undefined;
  if (fast) return fast;
  const fn = (
    compressors as Partial<Record<CompressionCodec, (input: Uint8Array, outputLength: number) => Uint8Array>>
  )[codec];
  return fn?.(input, length);
}

/** The few PageHeader fields this needs, from Thrift's compact protocol; everything else is skipped. */
function readPageHeader(
  bytes: Uint8Array,
  offset: number,
): { type: number; uncompressed: number; compressed: number; numValues: number; end: number } {
  const r = new CompactReader(bytes, offset);
  const out = { type: -1, uncompressed: -1, compressed: -1, numValues: -1, end: 0 };
  r.struct((id, type) => {
    if (id === 1 && type === I32) out.type = r.i32();
    else if (id === 2 && type === I32) out.uncompressed = r.i32();
    else if (id === 3 && type === I32) out.compressed = r.i32();
    else if (id === 7 && type === STRUCT)
      r.struct((inner, t) => (inner === 1 && t === I32 ? (out.numValues = r.i32()) : r.skip(t)));
    else r.skip(type);
  });
  out.end = r.at;
  return out;
}

const BOOL_TRUE = 1;
const BOOL_FALSE = 2;
const BYTE = 3;
const I16 = 4;
const I32 = 5;
const I64 = 6;
const DOUBLE = 7;
const BINARY = 8;
const LIST = 9;
const SET = 10;
const MAP = 11;
const STRUCT = 12;

class CompactReader {
  constructor(
    private readonly bytes: Uint8Array,
    public at: number,
  ) {}

  private byte(): number {
    if (this.at >= this.bytes.byteLength) throw new RangeError("page header runs past the end of the file");
    return this.bytes[this.at++] as number;
  }

  varint(): number {
    let result = 0;
    for (let shift = 0; shift < 64; shift += 7) {
      const b = this.byte();
      result += (b & 0x7f) * 2 ** shift;
      if ((b & 0x80) === 0) return result;
    }
    throw new RangeError("varint too long");
  }

  i32(): number {
    const n = this.varint();
    return n % 2 === 0 ? n / 2 : -(n + 1) / 2;
  }

  /** Calls `field` for each field of a struct until its stop byte. */
  struct(field: (id: number, type: number) => void): void {
    let last = 0;
    for (let depth = 0; depth < 1000; depth++) {
      const head = this.byte();
      if (head === 0) return;
      const type = head & 0x0f;
      const delta = head >> 4;
      const id = delta === 0 ? this.i32() : last + delta;
      last = id;
      field(id, type);
    }
    throw new RangeError("struct too long");
  }

  skip(type: number): void {
    switch (type) {
      case BOOL_TRUE:
      case BOOL_FALSE:
        return;
      case BYTE:
        this.at += 1;
        return;
      case I16:
      case I32:
      case I64:
        this.varint();
        return;
      case DOUBLE:
        this.at += 8;
        return;
      case BINARY:
        this.at += this.varint();
        return;
      case LIST:
      case SET: {
        const head = this.byte();
        const size = head >> 4 === 15 ? this.varint() : head >> 4;
        for (let i = 0; i < size; i++)
          this.skip((head & 0x0f) === BOOL_TRUE || (head & 0x0f) === BOOL_FALSE ? BYTE : head & 0x0f);
        return;
      }
      case MAP: {
        const size = this.varint();
        if (size === 0) return;
        const kinds = this.byte();
        for (let i = 0; i < size; i++) {
          this.skip(kinds >> 4);
          this.skip(kinds & 0x0f);
        }
        return;
      }
      case STRUCT:
        this.struct((_, t) => this.skip(t));
        return;
      default:
        throw new RangeError(`unknown thrift type ${type}`);
    }
  }
}
