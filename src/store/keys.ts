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

/** Index of the first high surrogate (a character above U+FFFF), or -1. */
function firstAstral(key: string): number {
  for (let i = 0; i < key.length; i++) {
    const c = key.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff) return i;
  }
  return -1;
}

/**
 * A listing re-emitted in UTF-8 byte order, whether the server sorts by bytes (S3, Azure) or by UTF-16 code
 * units (Azurite). The two orders differ only where, after a common prefix, one key has a character above
 * U+FFFF and another one in U+E000–U+FFFF: UTF-16 puts the first before, UTF-8 after. So a key with such a
 * character waits until the listing has left the prefix before it; only those keys are ever held.
 */
export async function* inByteOrder<T extends { key: string }>(entries: AsyncIterable<T>): AsyncGenerator<T> {
  const held: T[] = []; // sorted by compareKeys
  const safe = (entry: T, latest: string) => {
    const at = firstAstral(entry.key);
    return at < 0 || !latest.startsWith(entry.key.slice(0, at));
  };
  for await (const entry of entries) {
    let at = held.length;
    while (at > 0 && compareKeys(held[at - 1]!.key, entry.key) > 0) at--;
    held.splice(at, 0, entry);
    while (held.length > 0 && safe(held[0]!, entry.key)) yield held.shift()!;
  }
  yield* held;
}
