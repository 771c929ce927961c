import type { TextDecoder } from "node:util";
import type { ColumnType } from "../geoparquet/features.js";
import type { FileField } from "./batch-builder.js";

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
export function dbfFields(header: Uint8Array, decoder: TextDecoder): DbfField[] {
  const fields: DbfField[] = [];
  let offset = 1; // the deletion flag
  for (let at = 32; at + 32 <= header.length && header[at] !== 0x0d; at += 32) {
    const raw = header.subarray(at, at + 11);
    const end = raw.indexOf(0);
    const name = decoder.decode(end < 0 ? raw : raw.subarray(0, end)).trim();
    const letter = String.fromCharCode(header[at + 11] as number).toUpperCase();
    const width = header[at + 16] as number;
    const decimals = header[at + 17] as number;
    fields.push({ name, type: typeOf(letter, width, decimals), letter, offset, width });
    offset += width;
  }
  return fields;
}

const ascii = new globalThis.TextDecoder("latin1");

/** One field's value of a record, or null when it is blank (or, for numbers, asterisks: an overflow). */
export function dbfValue(record: Uint8Array, f: DbfField, decoder: TextDecoder): unknown {
  const raw = record.subarray(f.offset, f.offset + f.width);
  switch (f.letter) {
    case "C": {
      let end = raw.length;
      while (end > 0 && (raw[end - 1] === 0x20 || raw[end - 1] === 0)) end--;
      return end === 0 ? null : decoder.decode(raw.subarray(0, end));
    }
    case "N":
    case "F": {
      const t = ascii.decode(raw).trim();
      if (t === "" || /^\*+$/.test(t)) return null;
      return f.type === "float64" ? Number(t) : t; // integers as text: exact up to 64 bits
    }
    case "I":
      return new DataView(raw.buffer, raw.byteOffset, 4).getInt32(0, true);
    case "O":
      return new DataView(raw.buffer, raw.byteOffset, 8).getFloat64(0, true);
    case "L": {
      const c = ascii.decode(raw).trim().toUpperCase();
      return "TY".includes(c) && c ? true : "FN".includes(c) && c ? false : null;
    }
    case "D": {
      const t = ascii.decode(raw).trim();
      return /^\d{8}$/.test(t) && t !== "00000000" ? `${t.slice(0, 4)}-${t.slice(4, 6)}-${t.slice(6, 8)}` : null;
    }
    default: {
      const t = decoder.decode(raw).trim();
      return t === "" ? null : t;
    }
  }
}
