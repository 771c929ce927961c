import { readFile } from "node:fs/promises";
import { S3Store } from "../store/s3.js";

export class InputError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "InputError";
  }
}

/** Bytes of a file named by a local path, a file:// URL, or an s3://bucket/key URL. */
export async function readInput(ref: string): Promise<Uint8Array> {
  if (ref.startsWith("s3://")) {
    const rest = ref.slice("s3://".length);
    const slash = rest.indexOf("/");
    if (slash <= 0 || slash === rest.length - 1) throw new InputError(`${ref}: expected s3://bucket/key`);
    const store = new S3Store({ bucket: rest.slice(0, slash) });
    try {
      return (await store.get(rest.slice(slash + 1))).body;
    } finally {
      await store.close();
    }
  }
  const path = ref.startsWith("file://") ? new URL(ref).pathname : ref;
  try {
    return await readFile(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new InputError(code === "ENOENT" ? `${ref}: no such file` : code === "EISDIR" ? `${ref} is a directory; name a .parquet file` : `${ref}: cannot read (${code})`);
  }
}
