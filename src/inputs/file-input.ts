import { createHash } from "node:crypto";
import { createReadStream } from "node:fs";
import { readFile } from "node:fs/promises";
import { localPathOf } from "../store/schemes.js";
import type { InputKind, ResolvedInput } from "./identity.js";
import { InputIdentityError, InputMissingError } from "./identity-error.js";

/** A local path or file:// URL, identified by the sha256 of its bytes and checked again when read. */
export const fileInput: InputKind = {
  name: "file",
  matches: () => true,
  async resolve(uri: string): Promise<ResolvedInput> {
    const path = localPathOf(uri);
    const identity = await sha256OfFile(path).catch((error: NodeJS.ErrnoException) => {
      if (error.code === "ENOENT")
        throw new InputMissingError(
          `input ${uri} does not exist${uri === path ? "" : ` (${path})`}; check the path, or that the file was delivered`,
        );
      if (error.code === "EISDIR") throw new InputIdentityError(`input ${uri} is a directory, not a file`);
      throw new InputIdentityError(`input ${uri} cannot be read: ${error.code ?? error.message}`);
    });
    const changed = (now: string) =>
      new InputIdentityError(`input ${uri} changed during the run (${identity} → ${now}); run again`);
    return {
      uri,
      identity,
      async read() {
        const bytes = await readFile(path);
        const now = `sha256:${createHash("sha256").update(bytes).digest("hex")}`;
        if (now !== identity) throw changed(now);
        return bytes;
      },
      async path() {
        const now = await sha256OfFile(path);
        if (now !== identity) throw changed(now);
        return path;
      },
    };
  },
};

async function sha256OfFile(path: string): Promise<string> {
  const hash = createHash("sha256");
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return `sha256:${hash.digest("hex")}`;
}
