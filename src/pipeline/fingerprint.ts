import { createHash } from "node:crypto";

/**
 * Canonical JSON: object keys sorted at every depth, numbers as JSON writes them (so 1, 1.0 and 1e0 are one
 * value), no whitespace. Dates are strings by the time they get here. Undefined members are dropped; values JSON
 * cannot carry (NaN, functions, bigint) are refused so that they can never silently collapse to null.
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value === "boolean" || typeof value === "string") return JSON.stringify(value);
  if (typeof value === "number") {
    if (!Number.isFinite(value)) throw new TypeError(`cannot fingerprint the number ${value}`);
    return JSON.stringify(value === 0 ? 0 : value); // -0 and 0 are one value
  }
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(",")}}`;
  }
  throw new TypeError(`cannot fingerprint a ${typeof value}`);
}

export interface FingerprintInput {
  task: { name: string; version: string };
  partition: { dataset: string; region: string; date: string };
  params: Record<string, unknown>;
  /** Input name → content identity (ETag or sha256), never just a URI. */
  inputs: Record<string, string>;
  pins: Record<string, string>;
  /** Writer and format versions: a new writer that changes bytes must change keys. */
  writer: { id: string; format: string; storageCrs: string };
}

/** The artifact key: 16 hex characters of sha256 over the canonical JSON of everything that shapes the output. */
export function fingerprint(input: FingerprintInput): string {
  return createHash("sha256").update(canonicalJson(input)).digest("hex").slice(0, 16);
}
