import { isUtf8 } from "node:buffer";
import { Transform } from "node:stream";
import { TextDecoder } from "node:util";
import { SINGLE_BYTE_PAGES } from "./code-page-tables.js";
import { SourceError } from "../errors.js";

/** Windows code page numbers whose WHATWG names are not "windows-N" (as .cpg files and ESRI write them). */
const CODE_PAGES: Record<string, string> = {
  "932": "shift_jis",
  "936": "gbk",
  "949": "euc-kr",
  "950": "big5",
  "20932": "euc-jp",
  "54936": "gb18030",
  "65001": "utf-8",
  "20866": "koi8-r",
  "21866": "koi8-u",
  "874": "windows-874",
  "866": "ibm866",
  "10000": "macintosh",
  "10007": "x-mac-cyrillic",
};

/**
 * Spellings iconv (and so GDAL) takes that WHATWG's labels lack, by the name stripped of "-", "_" and spaces:
 * "Big-5", "KOI8R", "TIS620", "EUCJP", "SJIS", "GB2312".
 */
const SPELLINGS: Record<string, string> = {
  big5: "big5",
  big5hkscs: "big5-hkscs",
  koi8r: "koi8-r",
  koi8u: "koi8-u",
  koi8ru: "koi8-u",
  tis620: "windows-874",
  iso885911: "windows-874",
  eucjp: "euc-jp",
  euckr: "euc-kr",
  shiftjis: "shift_jis",
  sjis: "shift_jis",
  mskanji: "shift_jis",
  gb2312: "gbk",
  euccn: "gbk",
  gbk: "gbk",
  gb18030: "gb18030",
  iso2022jp: "iso-2022-jp",
  macroman: "macintosh",
  maccyrillic: "x-mac-cyrillic",
  utf16: "utf-16le",
  utf16le: "utf-16le",
  utf16be: "utf-16be",
};

/** A code page as `.cpg` files, configs and WHATWG spell it ("CP932", "1252", "ANSI 1251", "8859_5", "UTF8") → a label. */
export function encodingLabel(encoding: string): string {
  const name = encoding.trim().toLowerCase();
  if (name === "utf8") return "utf-8";
  const iso = /^(?:iso[-_ ]?)?8859[-_ ]?(\d{1,2})$/.exec(name) ?? /^2859(\d)$/.exec(name);
  if (iso) return `iso-8859-${iso[1]}`;
  const number = /^(?:cp|ansi[-_ ]?|windows-|ibm|dos)?(\d{3,5})$/.exec(name)?.[1];
  if (number === undefined) return SPELLINGS[name.replace(/[-_ ]/g, "")] ?? name;
  return CODE_PAGES[number] ?? (number.length === 3 ? `ibm${number}` : `windows-${number}`);
}

function cannotRead(encoding: string, where: string): SourceError {
  // A .cpg may hold anything (an HTML error page saved by a download): quote a code page's worth of it, no more.
  const said = encoding.length > 40 || /[<>\n]/.test(encoding);
  const shown = said
    ? `${JSON.stringify(encoding.slice(0, 40))}… (${encoding.length} characters: not a code page name)`
    : JSON.stringify(encoding);
  return new SourceError(
    `${where}: the encoding ${shown} is not one this build can read; set "encoding" in the source (e.g. "utf-8", "latin1", "windows-1252", "shift_jis")`,
  );
}

/** What a stream decoder needs of TextDecoder. */
export interface Decoder {
  decode(bytes?: Uint8Array, options?: { stream?: boolean }): string;
}

/** The WHATWG labels that mean windows-1252 (which Node 20 decodes wrongly, see code-page-tables.ts). */
const WINDOWS_1252 = ["windows-1252", "cp1252", "x-cp1252", "ascii", "us-ascii", "ansi_x3.4-1968", "cp819", "ibm819"];

function singleByte(table: string): (b: Uint8Array, s: number, e: number) => string {
  return (b, s, e) => {
    let out = "";
    for (let i = s; i < e; i++) {
      const c = b[i] as number;
      out += c < 0x80 ? String.fromCharCode(c) : table[c - 0x80];
    }
    return out;
  };
}

function tableOf(label: string): string | undefined {
  return SINGLE_BYTE_PAGES[WINDOWS_1252.includes(label) ? "windows-1252" : label];
}

/** A code page → a decoder for it (or an error saying so). */
export function decoderFor(encoding: string, where: string): Decoder {
  const label = encodingLabel(encoding);
  const table = tableOf(label);
  if (table !== undefined) {
    const decode = singleByte(table);
    return { decode: (b) => (b ? decode(b, 0, b.length) : "") };
  }
  try {
    return new TextDecoder(label);
  } catch {
    throw cannotRead(encoding, where);
  }
}

/** Bytes → text in `encoding`, chunk by chunk (a character split across chunks is kept whole). */
export function decodingStream(decoder: Decoder): Transform {
  return new Transform({
    transform(chunk: Buffer, _enc, done) {
      done(null, decoder.decode(chunk, { stream: true }));
    },
    flush(done) {
      done(null, decoder.decode());
    },
  });
}

/** A field said to be UTF-8 (a .cpg, the source's "encoding") whose bytes are not. */
export class NotUtf8Text extends Error {
  constructor(readonly bytes: Uint8Array) {
    super("text that is not UTF-8");
  }
}

/** Bytes → text, for fixed-width fields: Node's own UTF-8 and Latin-1, a DOS table, else a TextDecoder. */
export type FieldText = (bytes: Buffer, start: number, end: number) => string;

export function fieldText(encoding: string, where: string): FieldText {
  const label = encodingLabel(encoding);
  if (label === "utf-8")
    return (b, s, e) => {
      // Read as UTF-8, another code page's bytes would be U+FFFD in the artifact: the caller names the field.
      if (!isUtf8(b.subarray(s, e))) throw new NotUtf8Text(b.subarray(s, e));
      return b.toString("utf8", s, e);
    };
  // True ISO-8859-1, as GDAL's iconv reads it (WHATWG's "iso-8859-1" label means windows-1252).
  if (["iso-8859-1", "latin1", "iso_8859_1", "l1"].includes(label)) return (b, s, e) => b.toString("latin1", s, e);
  const table = tableOf(label);
  if (table !== undefined) return singleByte(table);
  const decoder = decoderFor(encoding, where);
  return (b, s, e) => decoder.decode(b.subarray(s, e));
}

const strictUtf8 = new TextDecoder("utf-8", { fatal: true });

/**
 * A DBF that says no code page (no .cpg, language driver byte 0): GDAL passes its bytes through untouched, which
 * is right for the UTF-8 most tools now write; a value that is not valid UTF-8 is read as ISO-8859-1 instead of
 * becoming replacement characters.
 */
export const unsaidText: FieldText = (b, s, e) => {
  let ascii = true;
  for (let i = s; i < e && ascii; i++) ascii = (b[i] as number) < 0x80;
  if (ascii) return b.toString("latin1", s, e);
  try {
    return strictUtf8.decode(b.subarray(s, e));
  } catch {
    return b.toString("latin1", s, e);
  }
};
