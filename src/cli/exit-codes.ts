import { GeorefreshError } from "../errors.js";
import type { ErrorCode } from "../errors.js";
import { OUTCOMES } from "../protocol/refresh-types.js";
import type { Outcome } from "../protocol/refresh-types.js";
import { isUnusableCode } from "../store/errors.js";

/** Exit codes of every georefresh command, by name. */
export const EXIT = {
  ok: 0,
  failed: 1,
  usage: 2,
  store: 3,
  superseded: 4,
  partitionFailed: 5,
  transient: 75,
  SIGINT: 130,
  SIGTERM: 143,
} as const;

type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/**
 * The one table from every error code and every partition outcome to the exit code it means. A Record over both
 * unions: a new error code or outcome without an exit code does not compile. README's "Exit codes" table and
 * `--help` are generated from it (test/cli/exit-codes.test.ts fails when they drift).
 */
export const EXIT_CODE: Record<ErrorCode | Outcome, ExitCode> = {
  // outcomes of run/backfill
  promoted: EXIT.ok,
  rekeyed: EXIT.ok,
  reconciled: EXIT.ok,
  unchanged: EXIT.ok,
  invalid: EXIT.failed,
  superseded: EXIT.superseded,
  failed: EXIT.partitionFailed,
  blocked: EXIT.transient,
  // arguments, configuration, local inputs
  Usage: EXIT.usage,
  Config: EXIT.usage,
  Backfill: EXIT.usage,
  Pin: EXIT.usage,
  Schedule: EXIT.usage,
  PartitionName: EXIT.usage,
  GcFloor: EXIT.usage,
  Input: EXIT.usage,
  InputMissing: EXIT.usage,
  MemorySetting: EXIT.usage,
  TaskLoad: EXIT.usage,
  GeoParquetRead: EXIT.usage,
  InvalidKey: EXIT.usage,
  InvalidRange: EXIT.usage,
  // what a command found or refused
  Read: EXIT.failed,
  HistoryTooShort: EXIT.failed,
  Manifest: EXIT.failed,
  TamperedManifest: EXIT.failed,
  Snapshot: EXIT.failed,
  Stac: EXIT.failed,
  Report: EXIT.failed,
  Changes: EXIT.failed,
  SinkSchema: EXIT.usage,
  SinkTarget: EXIT.usage,
  SinkRefused: EXIT.failed,
  Refresh: EXIT.failed,
  ComputeOutput: EXIT.failed,
  NonDeterministic: EXIT.failed,
  Memo: EXIT.failed,
  Staging: EXIT.failed,
  Crs: EXIT.failed,
  Wkb: EXIT.failed,
  FeatureSchema: EXIT.failed,
  GeoParquetWrite: EXIT.failed,
  GeoMetadata: EXIT.failed,
  Thrift: EXIT.failed,
  GeometryColumn: EXIT.failed,
  InputIdentity: EXIT.failed,
  InputRefused: EXIT.failed,
  InputTooLarge: EXIT.failed,
  Source: EXIT.partitionFailed,
  // later
  UpstreamMissing: EXIT.transient,
  Unavailable: EXIT.transient,
  LockTimeout: EXIT.transient,
  SinkBusy: EXIT.transient,
  SinkUnavailable: EXIT.transient,
  // the store as set up
  NotFound: EXIT.store,
  AlreadyExists: EXIT.store,
  PreconditionFailed: EXIT.store,
  AccessDenied: EXIT.store,
  Misconfigured: EXIT.store,
  SpecialFile: EXIT.store,
  Internal: EXIT.store,
  SinkConnect: EXIT.store,
};

/** Each exit code's meaning: `short` for --help, `long` for README's table. */
const MEANING: Record<ExitCode, { short: string; long: string }> = {
  0: { short: "success", long: "success" },
  1: {
    short: "the command ran and found a problem (a failed check, an invalid file or result)",
    long: "the command ran and found a problem (a failed check, an invalid file, a tampered or unreadable manifest or snapshot; `gc` skipped a dataset it could not fully read; `--as-of` earlier than manifest history reaches; `stac` refused to write past an unreadable manifest, or stopped because another `stac` run of the dataset wrote the catalog meanwhile; `report` written, but some manifests could not be read; a manifest whose `promoted_at` is no real time is corrupt and named; `sink` refused a partition: duplicate keys, a row count unlike its manifest's, a column whose type changed; nothing was applied); `run`/`backfill`: a partition was `invalid` (validation or plausibility refused it, nothing was published)",
  },
  2: {
    short: "usage or configuration error, or a local input that cannot be read",
    long: "usage error, or an input that cannot be read (missing file, object or URL — `run`/`backfill`: a partition whose input does not exist —, not Parquet, truncated, over the decode limit), an invalid key or date; a time that is not a strict ISO 8601 instant with its offset (`--as-of`, `GEOREFRESH_SCHEDULED_TIME`, `GEOREFRESH_JOB_NAME`); an unknown dataset (every command names it and the known ones); a configuration error found when the config loads: a name over 100 characters or with other characters than letters, digits, `_`, `.`, `-`, a `catalog.license` that is not an SPDX id or expression (or `other`), a pin the versions file lacks, a `dataset:` input the config does not name, datasets that read each other's partitions in a cycle, a bad `inputs` setting, a task module without the task; `sink --to` that is neither a PostgreSQL URL nor a `.gpkg` path, or a schema PostgreSQL cannot take (empty, over 63 bytes, or its own: `pg_*`, `information_schema`)",
  },
  3: {
    short: "the store cannot be used as set up (credentials refused, bucket missing, ignores conditional writes)",
    long: "the store cannot be used as set up: credentials refused, bucket missing, bad URL, credentials in the endpoint URL, ignores conditional writes, a symlink or special file in the filesystem store (a backfill stops starting partitions at the first such failure); `sink`: the database refused the login (or its database is missing), or the GeoPackage cannot be opened",
  },
  4: {
    short: "run/backfill: a partition was superseded (another run promoted first; this one changed nothing)",
    long: "`run`/`backfill`: a partition was superseded (another run promoted first; this one changed nothing)",
  },
  5: {
    short: "run/backfill: a partition failed (nothing half-done is visible)",
    long: "`run`/`backfill`: a partition failed (task error, missing artifact, non-deterministic output, an input refused: a link-local or metadata address, a redirect into another host's private network, an HTTP answer that is not the whole file, an input over `GEOREFRESH_MAX_INPUT_BYTES`; a source file with no CRS, a CRS the config contradicts, a corrupt file, a zip bomb or an entry leaving its archive, …)",
  },
  75: {
    short: "unreachable store or input, or a partition blocked on an upstream dataset: run again later",
    long: "the store (or an HTTP input) was unreachable or kept failing (connection refused, timeouts, throttling, 5xx after retries): nothing is wrong with the setup, run again later (EX_TEMPFAIL; a backfill stops starting partitions); or a partition was `blocked` because an upstream dataset's partition is not promoted yet; or `sink`'s GeoPackage stayed locked by another program (an open transaction: a sqlite3 shell, an editor) for 10 minutes; or `sink`'s PostgreSQL was down, restarting or out of connections (nothing was changed)",
  },
  130: {
    short: "stopped by SIGINT: partitions in flight finished, run again to continue",
    long: "`run`/`backfill` stopped by SIGINT: partitions in flight finished, no more were started (a second signal stops at once); run again to finish",
  },
  143: {
    short: "stopped by SIGTERM: likewise",
    long: "`run`/`backfill` stopped by SIGTERM, likewise",
  },
};

/**
 * Partition failures that are the setup's, not the run's: `run`/`backfill` exit with the error's own code (2)
 * rather than a failed partition's 5. A corrupt file a task reads stays a failed partition (5).
 */
export const SETUP_FAILURES: readonly ErrorCode[] = ["InputMissing"];

/** A backfill exits with the worst code among its partitions, in this order. */
export const WORST_FIRST: readonly ExitCode[] = [
  EXIT.store,
  EXIT.usage,
  EXIT.transient,
  EXIT.partitionFailed,
  EXIT.superseded,
  EXIT.failed,
  EXIT.ok,
];

/** Exit code per partition outcome (kept for the library's OUTCOME_EXIT). */
export const OUTCOME_EXIT = Object.fromEntries(OUTCOMES.map((o) => [o, EXIT_CODE[o]])) as Record<Outcome, ExitCode>;

export function exitCodeOf(error: unknown): number {
  return error instanceof GeorefreshError ? EXIT_CODE[error.code] : EXIT.failed;
}

/** The worst of several exit codes (WORST_FIRST); 0 for none. */
export function worstExit(codes: Iterable<number>): number {
  const seen = new Set(codes);
  return WORST_FIRST.find((c) => seen.has(c)) ?? EXIT.ok;
}

/**
 * The exit code a failure's error code calls for beside its outcome's, from the table: the store's (3, or 75 when
 * it was unreachable: run again later) when the store itself could not be used; with `setup`, 2 for a
 * SETUP_FAILURES code. Undefined: the outcome's code stands (a corrupt file a task reads is a failed partition).
 */
export function failureExit(code: ErrorCode | undefined, { setup = true } = {}): ExitCode | undefined {
  if (code === undefined) return undefined;
  return isUnusableCode(code) || (setup && SETUP_FAILURES.includes(code)) ? EXIT_CODE[code] : undefined;
}

/** The worst failureExit among several failures; undefined when none calls for one. */
export function worstFailureExit(
  failures: readonly ({ code?: ErrorCode } | undefined)[],
  options?: { setup?: boolean },
): number | undefined {
  const codes = failures.flatMap((f) => failureExit(f?.code, options) ?? []);
  return codes.length ? worstExit(codes) : undefined;
}

/** What maps to a code: its outcomes and error codes, in table order. */
function mappedTo(code: ExitCode): { outcomes: string[]; errors: string[] } {
  const keys = Object.keys(EXIT_CODE).filter((k) => EXIT_CODE[k as keyof typeof EXIT_CODE] === code);
  const outcomes = keys.filter((k) => (OUTCOMES as readonly string[]).includes(k));
  return { outcomes, errors: keys.filter((k) => !outcomes.includes(k)) };
}

const CODES = Object.keys(MEANING).map(Number) as ExitCode[];

/** README's "Exit codes" table, generated (npm run docs:exit-codes writes it). */
export function exitCodesMarkdown(): string {
  const rows = CODES.map((code) => {
    const { outcomes, errors } = mappedTo(code);
    const parts = [MEANING[code].long];
    if (outcomes.length) parts.push(`outcomes: ${outcomes.map((o) => `\`${o}\``).join(", ")}`);
    if (errors.length) parts.push(`error codes: ${errors.map((e) => `\`${e}\``).join(", ")}`);
    return `| ${code} | ${parts.join(". ")} |`;
  });
  const worst = WORST_FIRST.join(" > ");
  return [
    "| code | meaning |",
    "| --- | --- |",
    ...rows,
    "",
    `A backfill exits with the worst code of its partitions (${worst}). \`--json\` output carries each error's \`code\`.`,
  ].join("\n");
}

/** The `--help` epilogue, generated from the same table. */
export function exitCodesHelp(): string {
  const lines = CODES.map((code) => {
    const { outcomes } = mappedTo(code);
    return `  ${String(code).padStart(3)}  ${MEANING[code].short}${outcomes.length ? ` [${outcomes.join(", ")}]` : ""}`;
  });
  return `\nExit codes (a backfill exits with the worst of its partitions: ${WORST_FIRST.join(" > ")}):\n${lines.join("\n")}`;
}
