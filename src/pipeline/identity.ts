import { createHash } from "node:crypto";
import { createReadStream } from "node:fs";
import { readFile } from "node:fs/promises";
import { S3Store } from "../store/s3.js";

/** An input as the run sees it: where it is, and what it is (content identity read once at run start). */
export interface ResolvedInput {
  uri: string;
  identity: string;
  read(): Promise<Uint8Array>;
}

export class InputIdentityError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "InputIdentityError";
  }
}

function splitS3(uri: string): { bucket: string; key: string } {
  const rest = uri.slice("s3://".length);
  const slash = rest.indexOf("/");
  if (slash <= 0) throw new InputIdentityError(`input ${uri}: expected s3://bucket/key`);
  return { bucket: rest.slice(0, slash), key: rest.slice(slash + 1) };
}

/**
 * Identifies an input: s3:// by ETag (HEAD), a local path or file:// by the sha256 of its bytes. Reading it later
 * checks the identity again, so a file that changed mid-run fails the run instead of mixing two versions.
 */
export async function resolveInput(uri: string): Promise<ResolvedInput> {
  if (uri.startsWith("s3://")) {
    const { bucket, key } = splitS3(uri);
    const store = new S3Store({ bucket });
    const head = await store.head(key);
    const identity = `etag:${head.version}`;
    return {
      uri,
      identity,
      async read() {
        const got = await store.get(key);
        if (`etag:${got.meta.version}` !== identity) throw new InputIdentityError(`input ${uri} changed during the run (${identity} → etag:${got.meta.version}); run again`);
        return got.body;
      },
    };
  }
  const path = uri.startsWith("file://") ? new URL(uri).pathname : uri;
  const hash = createHash("sha256");
  try {
    for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  } catch (error) {
    throw new InputIdentityError(`input ${uri} cannot be read: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
  const identity = `sha256:${hash.digest("hex")}`;
  return {
    uri,
    identity,
    async read() {
      const bytes = await readFile(path);
      const now = `sha256:${createHash("sha256").update(bytes).digest("hex")}`;
      if (now !== identity) throw new InputIdentityError(`input ${uri} changed during the run (${identity} → ${now}); run again`);
      return bytes;
    },
  };
}
