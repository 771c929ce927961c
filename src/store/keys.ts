import { InvalidKeyError } from "./errors.js";

/** S3's limit; keeping it everywhere means a key that works on fs also works on S3. */
export const MAX_KEY_BYTES = 1024;

const RULES =
  "keys are '/'-separated names: no leading or trailing '/', no empty segments ('//'), no '.' or '..' segments, " +
  "no control characters, at most 1024 bytes of UTF-8";

/**
 * Rejects keys that could escape a prefix, alias another key, or break a backend: checked before any I/O on
 * every backend, so a bad name derived from user input fails the same way everywhere.
 */
export function validateKey(key: string): string {
  const fail = (why: string): never => {
    throw new InvalidKeyError(`invalid key ${JSON.stringify(key)}: ${why} (${RULES})`, { key });
  };
  if (typeof key !== "string" || key.length === 0) fail("empty key");
  if (!key.isWellFormed()) fail("not well-formed Unicode (lone surrogate)");
  // eslint-disable-next-line no-control-regex
  const control = /[\u0000-\u001f\u007f-\u009f]/.exec(key);
  if (control) fail(`control character U+${control[0].charCodeAt(0).toString(16).padStart(4, "0")}`);
  if (key.startsWith("/")) fail("leading '/'");
  if (key.endsWith("/")) fail("trailing '/'");
  for (const segment of key.split("/")) {
    if (segment === "") fail("empty path segment");
    if (segment === "." || segment === "..") fail(`'${segment}' segment`);
  }
  if (Buffer.byteLength(key, "utf8") > MAX_KEY_BYTES) fail(`longer than ${MAX_KEY_BYTES} bytes`);
  return key;
}

/** A list prefix may be empty or end in '/', but must otherwise follow the key rules. */
export function validatePrefix(prefix: string): string {
  if (prefix === "") return prefix;
  validateKey(prefix.endsWith("/") ? prefix.slice(0, -1) : prefix);
  return prefix;
}

/** Compares keys the way S3 lists them: by UTF-8 bytes, not UTF-16 code units. */
export function compareKeys(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, "utf8"), Buffer.from(b, "utf8"));
}
