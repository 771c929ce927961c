/** Exit codes of every georefresh command; README's "Exit codes" table is generated from the same meaning. */
export const EXIT = {
  /** Done; nothing to report. */
  ok: 0,
  /** The command ran and found a problem (a failed check, an invalid file). */
  failed: 1,
  /** Wrong arguments or options. */
  usage: 2,
  /** The store could not be used: unreachable, credentials refused, bucket missing, bad URL. */
  store: 3,
  /** Stopped by SIGINT (Ctrl-C) or SIGTERM: 128 + the signal number, as shells report it. */
  SIGINT: 130,
  SIGTERM: 143,
} as const;
