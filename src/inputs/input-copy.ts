import { createHash, randomUUID } from "node:crypto";
import { createWriteStream, mkdtempSync, rmSync } from "node:fs";
import { readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Transform } from "node:stream";
import type { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { GeorefreshError } from "../errors.js";
import type { ErrorCode } from "../errors.js";
import { InputIdentityError } from "./identity-error.js";
import { parseBytes } from "../sizes.js";

/**
 * Remote inputs (HTTP, object stores) are streamed to a local file while they are hashed, never buffered whole:
 * a 1 GiB or endless body costs disk up to the cap, not memory. The file is the run's verified copy: downloaded
 * once, read on demand, shared with the partition workers by path. Files live in one folder per process under
 * TMPDIR, named `georefresh-inputs-<pid>-*`, removed when the process exits (gc sweeps what a killed run left).
 */
export class InputTooLargeError extends GeorefreshError {
  override readonly code: ErrorCode = "InputTooLarge";
}

export const DEFAULT_MAX_INPUT_BYTES = 4 * 2 ** 30;
const TEMP_PREFIXES = ["georefresh-inputs-"] as const;

/** The cap on one input's bytes: GEOREFRESH_MAX_INPUT_BYTES (or the config's "inputs.maxBytes"), default 4 GiB. */
export function inputCap(): number {
  const given = process.env.GEOREFRESH_MAX_INPUT_BYTES;
  if (!given) return DEFAULT_MAX_INPUT_BYTES;
  return /^\d+$/.test(given) ? Number(given) : parseBytes(given, "GEOREFRESH_MAX_INPUT_BYTES");
}

const gib = (n: number) =>
  n >= 2 ** 30
    ? `${(n / 2 ** 30).toFixed(2)} GiB`
    : n >= 2 ** 20
      ? `${(n / 2 ** 20).toFixed(2)} MiB`
      : `${(n / 2 ** 10).toFixed(0)} KiB`;

export function tooLarge(input: string, cap: number, seen: string): InputTooLargeError {
  return new InputTooLargeError(
    `input ${input} is larger than the input cap of ${gib(cap)} (${cap} bytes; ${seen}); nothing was published. If it is meant to be this large, raise GEOREFRESH_MAX_INPUT_BYTES or "inputs": { "maxBytes": … } in the config`,
  );
}

let folder: string | undefined;
function inputFolder(): string {
  if (!folder) {
    folder = mkdtempSync(join(tmpdir(), `${TEMP_PREFIXES[0]}${process.pid}-`));
    const made = folder;
    process.once("exit", () => rmSync(made, { recursive: true, force: true }));
  }
  return folder;
}

export interface LocalCopy {
  path: string;
  sha256: string;
  bytes: number;
}

/** Streams `source` into a new file of the run's input folder, hashing it and stopping past `cap` bytes. */
export async function copyToFile(
  source: Readable | AsyncIterable<Uint8Array> | Iterable<Uint8Array>,
  input: string,
  cap: number,
): Promise<LocalCopy> {
  const path = join(inputFolder(), randomUUID());
  const hash = createHash("sha256");
  let bytes = 0;
  const counting = new Transform({
    transform(chunk: Buffer, _enc, done) {
      bytes += chunk.length;
      if (bytes > cap) return done(tooLarge(input, cap, `more than ${bytes} bytes arrived`));
      hash.update(chunk);
      done(null, chunk);
    },
  });
  try {
    await pipeline(source, counting, createWriteStream(path));
  } catch (error) {
    await rm(path, { force: true });
    if (error instanceof GeorefreshError) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOSPC" || code === "EDQUOT" || code === "EACCES" || code === "EROFS")
      throw new InputIdentityError(
        `input ${input}: writing its local copy to ${path} failed (${code}); free space in TMPDIR (${tmpdir()}) or point TMPDIR at a larger disk`,
      );
    throw error;
  }
  return { path, sha256: hash.digest("hex"), bytes };
}

/**
 * A verified copy's bytes. The copy was hashed as it was written, by this run, in a folder of its own: its size is
 * checked (a truncated or replaced file is refused), not its sha256 again, which would cost a second pass.
 */
export async function readCopy(copy: LocalCopy, input: string): Promise<Uint8Array> {
  const bytes = await readFile(copy.path).catch((error: NodeJS.ErrnoException) => {
    throw new InputIdentityError(
      `input ${input}: its local copy ${copy.path} cannot be read (${error.code}); run again`,
    );
  });
  if (bytes.byteLength !== copy.bytes)
    throw new InputIdentityError(
      `input ${input}: its local copy ${copy.path} has ${bytes.byteLength} bytes, not the ${copy.bytes} downloaded; run again`,
    );
  return bytes;
}
