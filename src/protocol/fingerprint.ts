import { createHash } from "node:crypto";

/**
 * Canonical JSON: object keys sorted at every depth, numbers as JSON writes them (so 1, 1.0 and 1e0 are one
 * value), no whitespace. Undefined members are dropped. A Date is its ISO string, a Set its members sorted, a Map
 * its [key, value] pairs sorted, so two different requests never share one encoding; any other value JSON cannot
 * carry faithfully (NaN, functions, bigint, class instances, typed arrays) is refused with where it stands, so
 * that it can never silently collapse to null or {}.
 */
export function canonicalJson(value: unknown, at = "$"): string {
  if (value === null || typeof value === "boolean" || typeof value === "string") return JSON.stringify(value);
  if (typeof value === "number") {
    if (!Number.isFinite(value)) throw new TypeError(`cannot fingerprint the number ${value} at ${at}`);
    return JSON.stringify(value === 0 ? 0 : value); // -0 and 0 are one value
  }
  if (Array.isArray(value)) return `[${value.map((v, i) => canonicalJson(v, `${at}[${i}]`)).join(",")}]`;
  if (value instanceof Date) {
    if (Number.isNaN(value.getTime())) throw new TypeError(`cannot fingerprint an invalid Date at ${at}`);
    return JSON.stringify(value.toISOString());
  }
  if (value instanceof Set)
    return `[${[...value]
      .map((v) => canonicalJson(v, `${at}{}`))
      .sort(byCodeUnit)
      .join(",")}]`;
  if (value instanceof Map)
    return `[${[...value]
      .map(([k, v]) => `[${canonicalJson(k, `${at}<key>`)},${canonicalJson(v, `${at}<value>`)}]`)
      .sort(byCodeUnit)
      .join(",")}]`;
  if (typeof value === "object") {
    const proto = Object.getPrototypeOf(value) as unknown;
    if (proto !== Object.prototype && proto !== null)
      throw new TypeError(
        `cannot fingerprint a ${(value as object).constructor?.name ?? "non-plain object"} at ${at}: use plain objects, arrays, strings, numbers, booleans, null, Date, Set or Map`,
      );
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => byCodeUnit(a, b));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v, `${at}.${k}`)}`).join(",")}}`;
  }
  throw new TypeError(`cannot fingerprint a ${typeof value} at ${at}`);
}

const byCodeUnit = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

export interface FingerprintInput {
  task: { name: string; version: string };
  partition: { dataset: string; region: string; date: string };
  params: Record<string, unknown>;
  /** Input name → content identity (ETag or sha256), never just a URI. */
  inputs: Record<string, string>;
  pins: Record<string, string>;
  /** The natural key (absent without one, so that keys made before keys existed stay the same). */
  rowKey?: string[];
  /** A partial payload's previous version (its sha256; null for none): the merge's other input. */
  base?: string | null;
  /** Writer and format versions: a new writer that changes bytes must change keys. */
  writer: { id: string; format: string; storageCrs: string };
}

/** The artifact key: 16 hex characters of sha256 over the canonical JSON of everything that shapes the output. */
export function fingerprint(input: FingerprintInput): string {
  return createHash("sha256").update(canonicalJson(input)).digest("hex").slice(0, 16);
}
