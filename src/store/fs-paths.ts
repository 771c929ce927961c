import { constants } from "node:fs";
import type { BigIntStats, Dirent, Stats } from "node:fs";
import { lstat, open, realpath } from "node:fs/promises";
import type { FileHandle } from "node:fs/promises";
import { dirname, join, relative, sep } from "node:path";
import { SpecialFileError } from "./errors.js";

/**
 * Path safety for the filesystem store: a key maps to a regular file reached through real directories under the
 * root, or to nothing. Symlinks (last component or any directory on the way), FIFOs, sockets and devices are
 * refused with one error everywhere (get, head, exists, put, delete, list), so that no command can see a
 * different store than another: gc once read no manifests through a symlinked directory that `read` followed.
 */

/** What kind of non-regular entry this is, or undefined for a regular file or a real directory. */
export function specialKind(entry: Dirent | Stats | BigIntStats): string | undefined {
  if (entry.isFile() || entry.isDirectory()) return undefined;
  if (entry.isSymbolicLink()) return "a symlink";
  if (entry.isFIFO()) return "a FIFO";
  if (entry.isSocket()) return "a socket";
  return "a device or other special file";
}

export function refusal(where: string, kind: string, key: string): SpecialFileError {
  return new SpecialFileError(
    `${where} is ${kind}: the filesystem store never follows links or opens special files inside its root. Replace it with a regular file or directory (or move the store), then run again`,
    { key },
  );
}

/** Opens a regular file (or directory) without following a final symlink and without blocking on a FIFO. */
export async function openRegular(path: string, key: string): Promise<{ handle: FileHandle; st: BigIntStats }> {
  let handle: FileHandle;
  try {
    handle = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ELOOP") throw refusal(path, "a symlink", key);
    throw error;
  }
  const st = await handle.stat({ bigint: true });
  const kind = specialKind(st);
  if (kind) {
    await handle.close();
    throw refusal(path, kind, key);
  }
  return { handle, st };
}

/**
 * Checks that the directory holding `path` is the real directory under `realRoot` its key names, with no symlink
 * on the way. A directory that does not exist yet passes (nothing can be read through it; writes create it): the
 * answer is then false; true when the directory exists and is real.
 */
export async function checkParent(root: string, realRoot: string, path: string, key: string): Promise<boolean> {
  const dir = dirname(path);
  let real: string;
  try {
    real = await realpath(dir);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") return false;
    throw error;
  }
  const expected = join(realRoot, relative(root, dir));
  if (real === expected) return true;
  // Name the first link on the way, as a listing that meets it does.
  const parts = relative(root, dir).split(sep);
  for (let i = 1; i <= parts.length; i++) {
    const at = join(root, ...parts.slice(0, i));
    const kind = specialKind(await lstat(at));
    if (kind) throw refusal(at, kind, parts.slice(0, i).join("/"));
  }
  throw refusal(`${dir} (it resolves to ${real})`, "reached through a symlink", key);
}
