import type { FieldText } from "../text/text-decode.js";
import type { ColumnType } from "../../geoparquet/features.js";
import type { FileField } from "../batch-builder.js";

/** A dBASE field: its name, type letter, width and decimals, and where it sits in a record. */
export interface DbfField extends FileField {
  letter: string;
  offset: number;
  width: number;
}

export interface DbfHeader {
  records: number;
  headerBytes: number;
  recordBytes: number;
  /** The language driver id (byte 29), which names the code page when there is no .cpg. */
  ldid: number;
  fields: DbfField[];
}

/** The code page a DBF language driver id names, as GDAL maps them (0: none said). */
export const LDID_ENCODINGS: Record<number, string> = {
  1: "ibm437",
  2: "ibm850",
  3: "windows-1252",
  87: "iso-8859-1",
  88: "windows-1252",
  89: "windows-1252",
  100: "ibm852",
  101: "ibm866",
  102: "ibm865",
  0x13: "shift_jis",
  0x4d: "gb18030",
  0x4e: "euc-kr",
  0x4f: "big5",
  0xc8: "windows-1250",
  0xc9: "windows-1251",
  0xca: "windows-1254",
  0xcb: "windows-1253",
  0xcc: "windows-1257",
};

/** The fixed part of a .dbf: the first 32 bytes say how long the rest of the header is. */
export function dbfPrelude(bytes: Uint8Array): {
  records: number;
  headerBytes: number;
  recordBytes: number;
  ldid: number;
} {
  const v = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return {
    records: v.getUint32(4, true),
    headerBytes: v.getUint16(8, true),
    recordBytes: v.getUint16(10, true),
    ldid: bytes[29] as number,
  };
}

/** GDAL's field types for dBASE: N of width < 10 is Integer, < 19 Integer64, else Real; D is a date (as text). */
function typeOf(letter: string, width: number, decimals: number): ColumnType {
  switch (letter) {
    case "N":
      return decimals > 0 ? "float64" : width < 10 ? "int32" : width < 19 ? "int64" : "float64";
    case "F":
    case "O":
      return "float64";
    case "I":
      return "int32";
    case "L":
      return "bool";
    default:
      return "string";
  }
}

/** The field descriptors after the prelude (32 bytes each, until 0x0D). */
export function dbfFields(header: Uint8Array, text: FieldText): DbfField[] {
  const bytes = Buffer.from(header.buffer, header.byteOffset, header.byteLength);
  const fields: DbfField[] = [];
  let offset = 1; // the deletion flag
  for (let at = 32; at + 32 <= header.length && header[at] !== 0x0d; at += 32) {
    const nul = bytes.indexOf(0, at);
    const name = text(bytes, at, nul < 0 || nul > at + 11 ? at + 11 : nul).trim();
    const letter = String.fromCharCode(header[at + 11] as number).toUpperCase();
    const width = header[at + 16] as number;
    const decimals = header[at + 17] as number;
    fields.push({ name, type: typeOf(letter, width, decimals), letter, offset, width });
    offset += width;
  }
  return fields;
}

/** A field's bytes without the spaces (and NULs) that pad them. */
function trimmed(record: Buffer, f: DbfField): [number, number] {
  let start = f.offset;
  let end = f.offset + f.width;
  while (end > start && (record[end - 1] === 0x20 || record[end - 1] === 0)) end--;
  while (start < end && record[start] === 0x20) start++;
  return [start, end];
}

/** An integer field's digits, read from the bytes (no string): undefined when they are not plain digits. */
function smallInteger(record: Buffer, start: number, end: number): number | undefined {
  let sign = 1;
  if (record[start] === 0x2d || record[start] === 0x2b) {
    if (record[start] === 0x2d) sign = -1;
    start++;
  }
  if (start === end || end - start > 15) return undefined;
  let n = 0;
  for (let i = start; i < end; i++) {
    const d = (record[i] as number) - 0x30;
    if (d < 0 || d > 9) return undefined;
    n = n * 10 + d;
  }
  return sign * n;
}

/** One field's value of a record, or null when it is blank (or, for numbers, asterisks: an overflow). */
export function dbfValue(record: Buffer, f: DbfField, text: FieldText): unknown {
  switch (f.letter) {
    case "C": {
      let end = f.offset + f.width;
      while (end > f.offset && (record[end - 1] === 0x20 || record[end - 1] === 0)) end--;
      return end === f.offset ? null : text(record, f.offset, end);
    }
    case "N":
    case "F": {
      const [start, end] = trimmed(record, f);
      if (start === end || record[start] === 0x2a) return null;
      if (f.type === "int32") return smallInteger(record, start, end) ?? record.toString("latin1", start, end);
      const t = record.toString("latin1", start, end);
      return f.type === "float64" ? Number(t) : t; // int64 as text: exact up to 64 bits
    }
    case "I":
      return record.readInt32LE(f.offset);
    case "O":
      return record.readDoubleLE(f.offset);
    case "L": {
      const c = String.fromCharCode(record[f.offset] as number).toUpperCase();
      return c === "T" || c === "Y" ? true : c === "F" || c === "N" ? false : null;
    }
    case "D": {
      const [start, end] = trimmed(record, f);
      const t = record.toString("latin1", start, end);
      return /^\d{8}$/.test(t) && t !== "00000000" ? `${t.slice(0, 4)}-${t.slice(4, 6)}-${t.slice(6, 8)}` : null;
    }
    default: {
      const [start, end] = trimmed(record, f);
      return start === end ? null : text(record, start, end);
    }
  }
}
