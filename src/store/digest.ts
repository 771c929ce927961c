import { createHash } from "node:crypto";

/** sha256 of bytes as lowercase hex: the version token of the fs and memory backends. */
export function sha256Hex(bytes: Uint8Array): string {
  return createHash("sha256").update(bytes).digest("hex");
}
