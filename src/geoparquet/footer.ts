import { decodeStruct, encodeStruct, field, text, ThriftError } from "./thrift.js";
import type { ThriftStruct } from "./thrift.js";

/**
 * A Parquet file is `PAR1 <column chunks, page indexes> <FileMetaData> <u32 length> PAR1`. Splitting at the
 * FileMetaData lets the writer rewrite it (2.0's logical type and statistics) without touching a data byte.
 */
export interface SplitFile {
  /** Everything before the FileMetaData; no offset in it changes when the footer is replaced. */
  body: Uint8Array;
  metadata: ThriftStruct;
}

/** A file to assemble: its body as parts (joined once, with the footer, into one allocation). */
export interface FileParts {
  body: Uint8Array | Uint8Array[];
  metadata: ThriftStruct;
}

const PAR1 = [0x50, 0x41, 0x52, 0x31];

export function splitFooter(bytes: Uint8Array): SplitFile {
  const n = bytes.byteLength;
  if (n < 12 || PAR1.some((b, i) => bytes[n - 4 + i] !== b))
    throw new ThriftError("not a Parquet file: it does not end with the 'PAR1' magic");
  const length = new DataView(bytes.buffer, bytes.byteOffset + n - 8, 4).getUint32(0, true);
  const start = n - 8 - length;
  if (start < 4) throw new ThriftError(`the footer claims ${length} bytes, more than the file holds`);
  const { struct, end } = decodeStruct(bytes, start, n - 8);
  if (end !== n - 8)
    throw new ThriftError(`the footer's FileMetaData ends ${n - 8 - end} bytes before its length says`);
  return { body: bytes.subarray(0, start), metadata: struct };
}

export function joinFooter(file: FileParts): Uint8Array {
  const meta = encodeStruct(file.metadata);
  const parts = Array.isArray(file.body) ? file.body : [file.body];
  const size = parts.reduce((n, p) => n + p.byteLength, 0);
  const out = new Uint8Array(size + meta.byteLength + 8);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.byteLength;
  }
  out.set(meta, size);
  const tail = size + meta.byteLength;
  new DataView(out.buffer).setUint32(tail, meta.byteLength, true);
  out.set(PAR1, tail + 4);
  return out;
}

const count = (el: ThriftStruct | undefined, id: number): number => {
  const v = el && field(el, id);
  return typeof v === "number" ? v : 0;
};

/** FileMetaData.schema is the tree depth first, root first; this names its top-level elements. */
export function topLevelElements(schema: ThriftStruct[]): Map<string, ThriftStruct> {
  const out = new Map<string, ThriftStruct>();
  let i = 1;
  for (let c = 0, n = count(schema[0], 5); c < n && i < schema.length; c++) {
    const el = schema[i] as ThriftStruct;
    out.set(text(field(el, 4)) ?? "", el);
    for (let pending = 1; pending > 0 && i < schema.length;) pending += count(schema[i++], 5) - 1;
  }
  return out;
}
