import { GeorefreshError } from "../errors.js";
import { isStoreTransient, StoreError } from "../store/errors.js";

/** Exit codes of every georefresh command; README's "Exit codes" table is generated from the same meaning. */
export const EXIT = {
  /** Done; nothing to report. */
  ok: 0,
  /** The command ran and found a problem (a failed check, an invalid file). */
  failed: 1,
  /** Wrong arguments or options. */
  usage: 2,
  /** The store cannot be used as set up: credentials refused, bucket missing, bad URL, ignores conditional writes. */
  store: 3,
  /** The store was unreachable or kept failing (timeouts, throttling, 5xx): run again later (EX_TEMPFAIL). */
  transient: 75,
  /** Stopped by SIGINT (Ctrl-C) or SIGTERM: 128 + the signal number, as shells report it. */
  SIGINT: 130,
  SIGTERM: 143,
} as const;

/**
 * The one table from error to exit code, by the errors' stable `code` (errors.ts), never by message; anything not
 * listed is a failure of the command (1), or of the store (3) for store errors, or 75 when the store was
 * unreachable.
 */
const BY_CODE: Record<string, number> = {
  Usage: EXIT.usage,
  Backfill: EXIT.usage,
  Config: EXIT.usage,
  Pin: EXIT.usage,
  PartitionName: EXIT.usage,
  GcFloor: EXIT.usage,
  Input: EXIT.usage,
  GeoParquetRead: EXIT.usage,
  InvalidKey: EXIT.usage,
  InvalidRange: EXIT.usage,
  Schedule: EXIT.usage,
  MemorySetting: EXIT.usage,
  Read: EXIT.failed,
  Manifest: EXIT.failed,
  TamperedManifest: EXIT.failed,
  HistoryTooShort: EXIT.failed,
  Snapshot: EXIT.failed,
  Stac: EXIT.failed,
  Report: EXIT.failed,
};

export function exitCodeOf(error: unknown): number {
  const listed = error instanceof GeorefreshError ? BY_CODE[error.code] : undefined;
  if (listed !== undefined) return listed;
  if (isStoreTransient(error)) return EXIT.transient;
  return error instanceof StoreError ? EXIT.store : EXIT.failed;
}

/**
 * The exit code store failures among a command's results call for: 75 when every one was the store being
 * unreachable (run again later), 3 when any says the store cannot be used as set up; undefined when none failed.
 */
export function storeExit(
  results: readonly ({ storeProblem?: boolean; transient?: boolean } | undefined)[],
): number | undefined {
  const failed = results.filter((r) => r?.storeProblem);
  if (failed.length === 0) return undefined;
  return failed.every((r) => r?.transient) ? EXIT.transient : EXIT.store;
}
