import { isUtf8 } from "node:buffer";
import { createReadStream } from "node:fs";
import type { Readable } from "node:stream";
import { pipeline, Transform } from "node:stream";
import { SourceError } from "../errors.js";
import { decoderFor, decodingStream, encodingLabel } from "./text-decode.js";

/**
 * A text file's bytes, checked as UTF-8 on the way (or decoded from the source's `encoding`). A file in another
 * code page read as UTF-8 would put U+FFFD into the artifact where the letters were ("Saïd" → "Sa�d"), published
 * with exit 0: it is refused instead, naming the byte, its line and what to set.
 */
export function textOf(path: string, where: string, encoding: string | undefined): Readable {
  const text =
    encoding !== undefined && encodingLabel(encoding) !== "utf-8"
      ? decodingStream(decoderFor(encoding, where))
      : utf8Checked(where);
  // pipeline, not pipe: a read error of the file reaches the reader through the last stream.
  return pipeline(createReadStream(path), text, () => undefined);
}

/** Passes UTF-8 bytes on unchanged, chunk by chunk (a character split across chunks is checked whole). */
export function utf8Checked(where: string): Transform {
  let carry: Buffer = Buffer.alloc(0);
  let offset = 0;
  let line = 1;
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      const bytes = carry.length ? Buffer.concat([carry, chunk]) : chunk;
      const end = wholeCharacters(bytes);
      const whole = bytes.subarray(0, end);
      if (!isUtf8(whole)) return done(notUtf8(whole, where, offset, line));
      for (let i = whole.indexOf(10); i >= 0; i = whole.indexOf(10, i + 1)) line++;
      offset += end;
      carry = Buffer.from(bytes.subarray(end));
      done(null, whole);
    },
    flush(done) {
      done(carry.length ? notUtf8(carry, where, offset, line) : null);
    },
  });
}

/** Bytes read whole (a file that fits in memory), checked the same way. */
export function checkedUtf8(bytes: Buffer, where: string): string {
  if (!isUtf8(bytes)) throw notUtf8(bytes, where, 0, 1);
  return bytes.toString("utf8");
}

/** Where the bytes end short of a character the next chunk completes (a lead byte's sequence cut off). */
function wholeCharacters(b: Buffer): number {
  for (let i = b.length - 1; i >= 0 && i >= b.length - 4; i--) {
    const c = b[i] as number;
    if ((c & 0xc0) === 0x80) continue;
    const need = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : c >= 0xc0 ? 2 : 1;
    return b.length - i < need ? i : b.length;
  }
  return b.length;
}

/** The first byte that starts no valid UTF-8 sequence (as WHATWG's decoder judges: no overlong, no surrogate). */
function firstInvalid(b: Buffer): number {
  let i = 0;
  while (i < b.length) {
    const c = b[i] as number;
    if (c < 0x80) {
      i++;
      continue;
    }
    const need = c >= 0xc2 && c <= 0xdf ? 2 : c >= 0xe0 && c <= 0xef ? 3 : c >= 0xf0 && c <= 0xf4 ? 4 : 0;
    if (!need || i + need > b.length || !isUtf8(b.subarray(i, i + need))) return i;
    i += need;
  }
  return b.length;
}

/**
 * Text bytes that are not UTF-8 as a message may show them: around the first bad byte, each byte outside
 * printable ASCII as \xNN, so the message itself holds no U+FFFD.
 */
export function shownBytes(
  b: Uint8Array,
  at = firstInvalid(Buffer.from(b.buffer, b.byteOffset, b.byteLength)),
): string {
  const head = at > 24 ? "…" : "";
  const tail = at + 12 < b.length ? "…" : "";
  const middle = [...b.subarray(Math.max(0, at - 24), Math.min(b.length, at + 12))]
    .map((c) =>
      c >= 0x20 && c < 0x7f && c !== 0x5c ? String.fromCharCode(c) : `\\x${c.toString(16).padStart(2, "0")}`,
    )
    .join("");
  return `${head}${middle}${tail}`;
}

function notUtf8(b: Buffer, where: string, offset: number, line: number): SourceError {
  const at = firstInvalid(b);
  let lines = line;
  for (let i = b.indexOf(10); i >= 0 && i < at; i = b.indexOf(10, i + 1)) lines++;
  const shown = shownBytes(b, at);
  return new SourceError(
    `${where}: byte ${offset + at} (line ${lines}) is not UTF-8 (${shown}): the file is in another encoding; set "encoding" on the source to the one it is in (e.g. "windows-1252", "latin1", "shift_jis"), or re-encode the file to UTF-8 (iconv -f WINDOWS-1252 -t UTF-8)`,
  );
}
