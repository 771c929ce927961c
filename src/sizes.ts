import { GeorefreshError } from "./errors.js";
import type { ErrorCode } from "./errors.js";

export class MemorySettingError extends GeorefreshError {
  override readonly code: ErrorCode = "MemorySetting";
}

const UNITS: Record<string, number> = {
  "": 1,
  b: 1,
  k: 1e3,
  kb: 1e3,
  kib: 2 ** 10,
  m: 1e6,
  mb: 1e6,
  mib: 2 ** 20,
  g: 1e9,
  gb: 1e9,
  gib: 2 ** 30,
};

/** "256MiB", "1GiB", "500MB", "1048576" → bytes. */
export function parseBytes(text: string, what: string): number {
  const m = /^\s*(\d+(?:\.\d+)?)\s*([a-z]*)\s*$/i.exec(text);
  const unit = m ? UNITS[(m[2] ?? "").toLowerCase()] : undefined;
  if (!m || unit === undefined)
    throw new MemorySettingError(`${what}: '${text}' is not a size; write it like 256MiB, 1GiB or 500MB`);
  const bytes = Math.floor(Number(m[1]) * unit);
  if (bytes < 2 ** 16) throw new MemorySettingError(`${what}: ${text} is below the smallest setting, 64KiB`);
  return bytes;
}

/** A size as people read it: 1.5 MiB, 96 KiB. */
export const sizeText = (n: number) =>
  n >= 2 ** 20 ? `${(n / 2 ** 20).toFixed(1)} MiB` : `${Math.ceil(n / 2 ** 10)} KiB`;
