import { Transform } from "node:stream";
import { TextDecoder } from "node:util";
import { SourceError } from "./errors.js";

/** A code page name as `.cpg` files, configs and WHATWG spell it → a TextDecoder for it (or an error saying so). */
export function decoderFor(encoding: string, where: string): TextDecoder {
  const name = encoding
    .trim()
    .replace(/^(cp|ansi_?)?(\d{3,4})$/i, (_, _p, n: string) => (n.length === 3 ? `ibm${n}` : `windows-${n}`));
  try {
    return new TextDecoder(name.toLowerCase() === "utf8" ? "utf-8" : name);
  } catch {
    throw new SourceError(
      `${where}: the encoding ${JSON.stringify(encoding)} is not one this build can read; set "encoding" in the source (e.g. "utf-8", "latin1", "windows-1252")`,
    );
  }
}

/** Bytes → text in `encoding`, chunk by chunk (a character split across chunks is kept whole). */
export function decodingStream(decoder: TextDecoder): Transform {
  return new Transform({
    transform(chunk: Buffer, _enc, done) {
      done(null, decoder.decode(chunk, { stream: true }));
    },
    flush(done) {
      done(null, decoder.decode());
    },
  });
}

/** Bytes → text, for fixed-width fields: Node's own UTF-8 and Latin-1, else a TextDecoder for the code page. */
export type FieldText = (bytes: Buffer, start: number, end: number) => string;

export function fieldText(encoding: string, where: string): FieldText {
  const name = encoding.trim().toLowerCase();
  if (name === "utf-8" || name === "utf8") return (b, s, e) => b.toString("utf8", s, e);
  // True ISO-8859-1, as GDAL's iconv reads it (WHATWG's "iso-8859-1" label means windows-1252).
  if (["iso-8859-1", "iso8859-1", "latin1", "88591", "8859_1", "iso_8859_1"].includes(name))
    return (b, s, e) => b.toString("latin1", s, e);
  const decoder = decoderFor(encoding, where);
  return (b, s, e) => decoder.decode(b.subarray(s, e));
}
