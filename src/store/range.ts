import { InvalidRangeError } from "./errors.js";
import type { ByteRange } from "./types.js";

/** Refuses a range that is no range at all (negative, fractional, unsafe), before any request. */
export function validateRange(range: ByteRange, key: string): ByteRange {
  const { offset, length } = range;
  if (!Number.isSafeInteger(offset) || !Number.isSafeInteger(length) || offset < 0 || length < 0) {
    throw new InvalidRangeError(`invalid byte range offset=${offset} length=${length} for ${key}`, { key });
  }
  return range;
}

/** Checks a requested range against the object size; a range past the end is clipped, as HTTP does. */
export function checkRange(range: ByteRange, size: number, key: string): { start: number; end: number } {
  const { offset, length } = validateRange(range, key);
  if (offset >= size && !(offset === 0 && size === 0)) {
    throw new InvalidRangeError(`byte range starts at ${offset}, past the end of ${key} (${size} bytes)`, { key });
  }
  return { start: offset, end: Math.min(size, offset + length) };
}

export function sliceRange(body: Uint8Array, range: ByteRange | undefined, key: string): Uint8Array {
  if (!range) return body;
  const { start, end } = checkRange(range, body.byteLength, key);
  return body.subarray(start, end);
}
