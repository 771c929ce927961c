import type { Readable } from "node:stream";
import yauzl from "yauzl";
import type { Entry, ZipFile } from "yauzl";
import { inputCap } from "../../inputs/input-copy.js";
import { SourceError } from "../errors.js";

/** Deflate cannot pass about 1032:1; a large entry near it is zeros, not data (a zip bomb). */
const BOMB_RATIO = 1000;
const BOMB_FLOOR = 16 * 2 ** 20;
const MAX_ENTRIES = 65_536;

/**
 * A zip archive read in place (yauzl): its central directory listed, an entry streamed when asked for, nothing
 * unpacked to disk. Refused whole: an entry whose name climbs out (`..`, an absolute path), an entry larger than the
 * input cap, or one compressed past what real data compresses to; an entry longer than it declared fails as read.
 */
export interface ZipArchive {
  entries: Entry[];
  stream(entry: Entry): Promise<AsyncIterable<Uint8Array>>;
  bytes(entry: Entry): Promise<Uint8Array>;
  close(): void;
}

export async function openZip(path: string, where: string): Promise<ZipArchive> {
  const zip = await new Promise<ZipFile>((resolve, reject) =>
    yauzl.open(
      path,
      { lazyEntries: true, autoClose: false, validateEntrySizes: true, strictFileNames: false },
      (error, z) => (error ? reject(unreadable(where, error)) : resolve(z as ZipFile)),
    ),
  );
  const entries: Entry[] = [];
  try {
    await new Promise<void>((resolve, reject) => {
      zip.on("entry", (entry: Entry) => {
        entries.push(entry);
        if (entries.length > MAX_ENTRIES)
          return reject(new SourceError(`${where} holds more than ${MAX_ENTRIES} entries; refusing it`));
        zip.readEntry();
      });
      zip.on("end", () => resolve());
      zip.on("error", (error: Error) => reject(unreadable(where, error)));
      zip.readEntry();
    });
  } catch (error) {
    zip.close();
    throw error;
  }
  const cap = inputCap();
  let unpacked = 0;
  const check = (entry: Entry) => {
    // A Unix mode in the high half of the external attributes: S_IFLNK entries hold a link's target, not data.
    if (((entry.externalFileAttributes >>> 16) & 0o170000) === 0o120000)
      throw new SourceError(
        `${where}: entry ${entry.fileName} is a symbolic link, which a feed has no use for; refusing it`,
      );
    unpacked += entry.uncompressedSize;
    if (unpacked > cap && entry.uncompressedSize <= cap)
      throw new SourceError(
        `${where}: its entries would unpack to ${unpacked} bytes together, over the input cap of ${cap} (GEOREFRESH_MAX_INPUT_BYTES); refusing it`,
      );
    if (entry.uncompressedSize > cap)
      throw new SourceError(
        `${where}: entry ${entry.fileName} would unpack to ${entry.uncompressedSize} bytes, over the input cap of ${cap} (GEOREFRESH_MAX_INPUT_BYTES); refusing it`,
      );
    if (entry.uncompressedSize > BOMB_FLOOR && entry.uncompressedSize > BOMB_RATIO * Math.max(1, entry.compressedSize))
      throw new SourceError(
        `${where}: entry ${entry.fileName} unpacks ${Math.round(entry.uncompressedSize / Math.max(1, entry.compressedSize))}× (${entry.compressedSize} → ${entry.uncompressedSize} bytes), which no real data does: it looks like a zip bomb; refusing it`,
      );
  };
  // The entry is opened when it is first read and destroyed when reading stops, so closing the archive never
  // meets a stream still open on it. An entry that inflates past (or short of) its declared size errors on its
  // stream: heard here, so it never becomes an unhandled 'error' event, and said as the file's fault.
  const stream = async (entry: Entry): Promise<AsyncIterable<Uint8Array>> => {
    check(entry);
    return (async function* () {
      const s = await new Promise<Readable>((resolve, reject) =>
        zip.openReadStream(entry, (error, r) => (error ? reject(unreadable(where, error)) : resolve(r as Readable))),
      );
      s.on("error", () => undefined);
      try {
        for await (const chunk of s) yield chunk as Uint8Array;
      } catch (error) {
        throw new SourceError(
          `${where}: entry ${entry.fileName} is damaged (${(error as Error).message}); the archive is corrupt or was tampered with: download or zip it again`,
        );
      } finally {
        s.destroy();
      }
    })();
  };
  return {
    entries,
    stream,
    async bytes(entry) {
      const parts: Uint8Array[] = [];
      for await (const chunk of await stream(entry)) parts.push(chunk);
      return Buffer.concat(parts);
    },
    close: () => zip.close(),
  };
}

function unreadable(where: string, error: Error): SourceError {
  const unsafe = /invalid relative path|absolute path/.test(error.message);
  return new SourceError(
    unsafe
      ? `${where} holds an entry whose name leaves the archive (${error.message}); refusing it`
      : `${where} cannot be read as a zip archive: ${error.message}; check the file and "format"`,
  );
}
