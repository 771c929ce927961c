import { existsSync } from "node:fs";
import { Option } from "commander";
import type { Command } from "commander";
import { parseBbox } from "../geo/bbox.js";
import { parseInstant } from "../calendar/calendar.js";
import { openDataset } from "../views/reader.js";
import { loadScheme } from "../store/backends.js";
import { localPathOf, schemeOf } from "../store/schemes.js";
import { validatePrefix } from "../store/keys.js";
import type { Dataset, DatasetView, Selection, Which } from "../views/reader.js";
import { CONFIG_DEFAULT, CONFIG_HELP, openReading, unknownDataset, UsageError } from "./context.js";
import { manifestPrefix, NAME, nameShown, partitionOfManifestKey } from "../manifest/layout.js";
import type { CommonOptions } from "./context.js";
import { EXIT } from "./exit-codes.js";
import { dateFlag, dateRange } from "./window.js";
import { err } from "./output.js";

/**
 * What the reading commands (ls, show, urls, read, changes) share: their options, the view and selection they
 * read, and opening a dataset with one answer for a name that is nowhere.
 */

export type Opts = Omit<CommonOptions, "config"> & {
  /** Optional here: --store alone reads without a config file. */
  config?: string;
  region?: string;
  date?: string;
  /** --latest-date; --latest is its deprecated spelling. */
  latestDate?: boolean;
  latest?: boolean;
  history?: boolean;
  format?: string;
  out?: string;
  snapshot?: string;
  asOf?: string;
  bbox?: string;
  from?: string;
  to?: string;
};

/** The view a command reads: the current manifests, a snapshot, or the manifests as of a time. */
export function viewOf(ds: Dataset, opts: Opts): Promise<DatasetView> {
  if (opts.snapshot && opts.asOf) throw new UsageError("give --snapshot or --as-of, not both");
  if (opts.snapshot) return ds.snapshot(opts.snapshot);
  if (opts.asOf) {
    const at = parseInstant(opts.asOf);
    if (!at)
      throw new UsageError(
        `--as-of ${JSON.stringify(opts.asOf)}: give an ISO 8601 instant with its offset, e.g. 2026-11-24T18:00:00Z or 2026-11-24T19:00:00+01:00 (a real calendar day and time)`,
      );
    return ds.asOf(at);
  }
  return ds.current();
}

export function selectionOf(opts: Opts): Selection | undefined {
  if (!opts.bbox && !opts.from && !opts.to) return undefined;
  const sel: Selection = {};
  if (opts.bbox) {
    const bbox = parseBbox(opts.bbox);
    if (typeof bbox === "string") throw new UsageError(`--${bbox}`);
    sel.bbox = bbox;
  }
  dateRange(opts.from, opts.to);
  if (opts.from !== undefined) sel.from = opts.from;
  if (opts.to !== undefined) sel.to = opts.to;
  return sel;
}

export const viewOptions = (cmd: Command) =>
  cmd
    .option("--snapshot <id>", "read a committed dataset snapshot: its id, or latest")
    .option(
      "--as-of <time>",
      "read what the manifests pointed at at this instant, ISO 8601 with its offset (2026-11-24T18:00:00Z), from manifest history",
    );

export const selectionOptions = (cmd: Command) =>
  cmd
    .option(
      "--bbox <minx,miny,maxx,maxy>",
      "only partitions whose artifact's bbox touches this lon/lat box (WGS84); read: only the rows whose geometry's box touches it",
    )
    .option("--from <date>", "only logical dates on or after this one")
    .option("--to <date>", "only logical dates on or before this one");

/**
 * `--latest-date`: each region's latest logical date, in whatever view is read. Not `--snapshot latest`, the
 * latest committed snapshot (every date of it). `--latest`, its old spelling, still works and says so on stderr.
 */
export const latestDate = (cmd: Command, help: string) =>
  cmd
    .option("--latest-date", `${help} (not --snapshot latest, which is the latest committed snapshot, every date)`)
    .addOption(new Option("--latest").hideHelp());

export function which(opts: Opts): Which {
  if (opts.date && opts.latest) throw new UsageError("give --date or --latest-date, not both");
  if (!opts.date && !opts.latest) throw new UsageError("give --date YYYY-MM-DD or --latest-date");
  return opts.date ? { date: dateFlag("date", opts.date) } : { latest: true };
}

/**
 * A store directory that is not there is a mistyped --store (or no backfill yet), never an empty answer: exit 2,
 * saying so and what to `run` to fill it.
 */
export function checkLocalStore(store: string, fromConfig: boolean, run: string): void {
  const local = schemeOf(store) === undefined || schemeOf(store) === "file";
  if (local && !existsSync(localPathOf(store)))
    throw new UsageError(
      `the store ${localPathOf(store)} does not exist: check --store${fromConfig ? ` (or the config's "store")` : ""}, or run ${run} into it first`,
    );
}

export async function withDataset(
  name: string,
  opts: Opts,
  body: (ds: ReturnType<typeof openDataset>) => Promise<number | void>,
): Promise<number> {
  if (opts.latest) err("georefresh: --latest is deprecated: use --latest-date (each region's latest logical date)\n");
  opts.latest = Boolean(opts.latest || opts.latestDate);
  // The command line's own mistakes first, before any store is opened.
  if (opts.date !== undefined) dateFlag("date", opts.date);
  dateRange(opts.from, opts.to);
  const { store, config } = await openReading(opts);
  await loadScheme(store);
  const ds = openDataset(store, name);
  try {
    // One answer everywhere for a name that is nowhere: exit 2, naming it and the known ones. A dataset the
    // config does not name may still be read when the store holds it (an analyst's own config, or none).
    const stored = NAME.test(name) && (await hasManifests(ds));
    if (config && Object.hasOwn(config.broken, name) && !stored) throw config.broken[name] as Error;
    // A region that cannot name a key says so first (the more precise mistake).
    if (opts.region !== undefined) validatePrefix(manifestPrefix(name, opts.region as string));
    if (config && !Object.hasOwn(config.datasets, name) && !stored) throw unknownDataset(config, name);
    if (!stored) checkLocalStore(store, Boolean(config), `georefresh backfill --dataset ${name}`);
    if (!config && !stored)
      throw new UsageError(
        `${ds.store.locate(manifestPrefix(name).slice(0, -1))} holds no partitions of ${nameShown(name)}; check the dataset's name and --store`,
      );
    if (!stored)
      err(
        `georefresh: ${ds.store.locate(manifestPrefix(name).slice(0, -1))} holds no partitions of ${name} yet: run georefresh backfill --dataset ${name} first (or check --store)\n`,
      );
    try {
      return (await body(ds)) ?? EXIT.ok;
    } catch (error) {
      // A region the store has never held is a mistyped --region (exit 2), said with the ones it holds.
      if (opts.region !== undefined && stored && !(await hasManifests(ds, opts.region)))
        throw await unknownRegion(ds, opts.region);
      throw error;
    }
  } finally {
    await ds.store.close();
  }
}

async function hasManifests(ds: Dataset, region?: string): Promise<boolean> {
  for await (const entry of ds.store.list(manifestPrefix(ds.name, region))) return entry !== undefined;
  return false;
}

async function unknownRegion(ds: Dataset, region: string): Promise<UsageError> {
  const regions = new Set<string>();
  for await (const e of ds.store.list(manifestPrefix(ds.name))) {
    const r = partitionOfManifestKey(e.key)?.region;
    if (r !== undefined) regions.add(r);
  }
  const known = [...regions].sort();
  const near = known.find((r) => r.toLowerCase() === region.toLowerCase());
  const shown = known.length > 20 ? `${known.slice(0, 20).join(", ")}, … (${known.length} in all)` : known.join(", ");
  return new UsageError(
    `${ds.name} has no region ${region}${near ? `; did you mean ${near}? (regions are case-sensitive)` : ""}; its regions are ${shown}`,
  );
}

/** Manifests that could not be read are named on stderr after the rest of the answer; the command then exits 1. */
export function reportProblems(problems: readonly { key: string; message: string }[]): number {
  for (const p of problems) err(`georefresh: skipped ${p.key}: ${p.message}\n`);
  return problems.length ? EXIT.failed : EXIT.ok;
}

export const common = (cmd: Command) =>
  cmd
    .option("--config <path>", `${CONFIG_HELP} (default: ${CONFIG_DEFAULT}; not needed with --store)`)
    .option("--store <url>", "the store to read (a directory or URL); overrides the config's")
    .option("--json", "machine-readable output")
    .addHelpText(
      "after",
      "\nExit codes: 0 done; 1 a manifest, snapshot or artifact could not be read (tampered, missing), or manifest\nhistory does not reach --as-of; 2 usage (an unknown dataset or region, a date that is no calendar day); 3 the\nstore cannot be used as set up; 75 the store was unreachable, run again later.",
    );

/** The selection flags as given, for a message. */
export function selectionShown(opts: Opts): string {
  const given = [
    opts.bbox ? `--bbox ${opts.bbox}` : "",
    opts.from ? `--from ${opts.from}` : "",
    opts.to ? `--to ${opts.to}` : "",
    opts.asOf ? `--as-of ${opts.asOf}` : "",
    opts.snapshot ? `--snapshot ${opts.snapshot}` : "",
    opts.region ? `--region ${opts.region}` : "",
  ].filter(Boolean);
  return given.join(" ");
}
