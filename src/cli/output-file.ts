import { rename, rm, writeFile } from "node:fs/promises";
import { dirname } from "node:path";
import { UsageError } from "./context.js";

/**
 * Writes a command's output file (`--out`, `--html`) aside and renames it into place, so a reader never opens half
 * of one; a path that cannot be written is the command line's mistake (exit 2), said with the flag and the path.
 */
export async function writeOutputFile(flag: string, path: string, data: string | Uint8Array): Promise<void> {
  const temp = `${path}.tmp-${process.pid}`;
  try {
    await writeFile(temp, data);
    await rename(temp, path);
  } catch (error) {
    await rm(temp, { force: true });
    throw new UsageError(`${flag} ${path}: ${why(error as NodeJS.ErrnoException, path)}`);
  }
}

function why(error: NodeJS.ErrnoException, path: string): string {
  switch (error.code) {
    case "ENOENT":
      return `its folder ${dirname(path)} does not exist; create it or give another path`;
    case "EACCES":
    case "EPERM":
      return "permission denied; give a path you can write";
    case "EISDIR":
      return "is a folder; give a file name";
    case "ENOTDIR":
      return "a part of the path is a file, not a folder";
    case "ENOSPC":
      return "the disk is full";
    default:
      return error.message;
  }
}
