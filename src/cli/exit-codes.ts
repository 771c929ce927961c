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
 * The one table from error to exit code. Errors are matched by their stable `name` (store errors by `code`), never
 * by message; anything not listed is a failure of the command (1), or of the store (3) for store errors.
 */
const BY_NAME: Record<string, number> = {
  UsageError: EXIT.usage,
  BackfillError: EXIT.usage,
  ScheduleError: EXIT.usage,
  ConfigError: EXIT.usage,
  PinError: EXIT.usage,
  PartitionNameError: EXIT.usage,
  GcFloorError: EXIT.usage,
  InputError: EXIT.usage,
  GeoParquetReadError: EXIT.usage,
  InvalidKeyError: EXIT.usage,
  InvalidRangeError: EXIT.usage,
  ReadError: EXIT.failed,
  ManifestError: EXIT.failed,
  TamperedManifestError: EXIT.failed,
};

export function exitCodeOf(error: unknown): number {
  const name = error instanceof Error ? error.name : "";
  const listed = BY_NAME[name];
  if (listed !== undefined) return listed;
  if (isStoreTransient(error)) return EXIT.transient;
  return error instanceof StoreError ? EXIT.store : EXIT.failed;
}
