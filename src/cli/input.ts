import { readFile } from "node:fs/promises";
import { isObjectUrl, localPathOf, openObject } from "../store/schemes.js";
import { loadScheme } from "../store/backends.js";
import { GeorefreshError } from "../errors.js";
import type { ErrorCode } from "../errors.js";

export class InputError extends GeorefreshError {
  override readonly code: ErrorCode = "Input";
}

/** Bytes of a file named by a local path, a file:// URL, or an object URL of a registered store (s3://bucket/key). */
export async function readInput(ref: string): Promise<Uint8Array> {
  await loadScheme(ref).catch(() => undefined);
  if (isObjectUrl(ref)) {
    let object: ReturnType<typeof openObject>;
    try {
      object = openObject(ref);
    } catch (error) {
      throw new InputError((error as Error).message);
    }
    try {
      return (await object.store.get(object.key)).body;
    } finally {
      await object.store.close();
    }
  }
  const path = localPathOf(ref);
  try {
    return await readFile(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new InputError(
      code === "ENOENT"
        ? `${ref}: no such file`
        : code === "EISDIR"
          ? `${ref} is a directory; name a .parquet file`
          : `${ref}: cannot read (${code})`,
    );
  }
}
