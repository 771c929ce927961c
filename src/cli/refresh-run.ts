import { availableParallelism } from "node:os";
import type { Command } from "commander";
import { logicalDates } from "../calendar/calendar.js";
import { loadStore } from "../store/backends.js";
import type { ObjectStore } from "../store/types.js";
import { runJob } from "../orchestrate/backfill.js";
import type { BackfillSummary } from "../orchestrate/backfill.js";
import type { RefreshJob } from "../orchestrate/job.js";
import { dealLanes, parseShard, planLanes, shardFromEnvironment } from "../orchestrate/lanes.js";
import type { Shard } from "../orchestrate/lanes.js";
import { planBackfill } from "../orchestrate/dry-run.js";
import type { BackfillPlan } from "../orchestrate/dry-run.js";
import type { PartitionSettings } from "../protocol/refresh-types.js";
import { OUTCOMES } from "../protocol/refresh.js";
import type { Outcome, RefreshResult } from "../protocol/refresh.js";
import type { TaskDefinition } from "../task/task.js";
import { byteSize, CONFIG_HELP, datasetOf, onlyOne, openConfig, UsageError } from "./context.js";
import type { CommonOptions } from "./context.js";
import { EXIT, EXIT_CODE, exitCodesHelp, worstExit, worstFailureExit } from "./exit-codes.js";
import { err, out, partitions, printJson } from "./output.js";
import { progressReporter } from "./progress.js";
import { groupPlans } from "./plan-report.js";
import { regionsOf, unfinishedDateWarning, windowEnd, windowStart } from "./window.js";
import type { WindowOptions } from "./window.js";
import { WORLD_EDGE_TOLERANCE } from "../geo/wkb-rewrite.js";

/** What `backfill` and `run` share: a refresh over a window, its dry run, its report and its exit code. */

export interface BackfillCliOptions extends CommonOptions, WindowOptions, PartitionFlags {
  /** Absent: the config's only dataset. */
  dataset?: string;
  concurrency: number;
  shard?: string;
  shards?: number;
  listShards?: number;
  threads?: number;
  workers?: number;
  workerProcesses?: boolean;
  /** Commander sets false for --no-snapshot. */
  snapshot?: boolean;
  dryRun?: boolean;
  /** Print nothing on success: no outcome line, no summary (errors still go to stderr). */
  quiet?: boolean;
  /** Without a terminal, a line per partition on stderr (else periodic progress and the problems only). */
  verbose?: boolean;
}

export const OUTCOME_HELP = `
Outcomes: promoted, reconciled (the artifact existed; the manifest now points at it), unchanged; invalid
(validation or plausibility refused it, nothing published); blocked (an upstream dataset's partition is not
promoted yet; run its backfill first); superseded (another run promoted first, this one changed nothing); failed.
SIGINT or SIGTERM: partitions in flight finish, no more start (a second signal stops at once); a re-run continues.
${exitCodesHelp()}

HTTP inputs never reach link-local or cloud metadata addresses, nor follow a redirect into another host's
loopback or private range (allow yours: GEOREFRESH_ALLOW_HOSTS=host,10.0.0.0/8 or "inputs.allowHosts" in the
config); one input may be at most GEOREFRESH_MAX_INPUT_BYTES (default 4GiB). Both refusals fail the partition (5).
See docs/inputs.md.`;

/**
 * The worst exit code among the partitions' outcomes and what their failures' codes call for: the store's (3, 75),
 * the setup's (an input that does not exist: 2), all from the one table (exit-codes.ts: WORST_FIRST).
 */
function exitFor(counts: Record<Outcome, number>, results: RefreshResult[]): number {
  const failures = worstFailureExit(results.filter((r) => r?.outcome === "failed"));
  const outcomes = OUTCOMES.filter((o) => counts[o] > 0).map((o) => EXIT_CODE[o]);
  return worstExit([...(failures === undefined ? [] : [failures]), ...outcomes]);
}

/**
 * SIGINT/SIGTERM (Ctrl-C, Kubernetes stopping a pod): start no more partitions, let those in flight finish, report,
 * exit 130/143. A second signal exits at once — as safe as kill -9, which the protocol is built for.
 */
function stopOnSignal(): { signal: AbortSignal; exitCode: number | undefined; dispose: () => void } {
  const controller = new AbortController();
  const state = {
    signal: controller.signal,
    exitCode: undefined as number | undefined,
    dispose: () => undefined as void,
  };
  const handler = (sig: "SIGINT" | "SIGTERM") => {
    if (controller.signal.aborted) process.exit(EXIT[sig]);
    state.exitCode = EXIT[sig];
    err(
      `\n${sig}: finishing the partitions in flight and starting no more; send it again to stop at once (a re-run continues where this one stopped)\n`,
    );
    controller.abort();
  };
  const onInt = () => handler("SIGINT");
  const onTerm = () => handler("SIGTERM");
  process.on("SIGINT", onInt);
  process.on("SIGTERM", onTerm);
  state.dispose = () => {
    process.off("SIGINT", onInt);
    process.off("SIGTERM", onTerm);
  };
  return state;
}

/** The dry run for people: counts, then each distinct reason with how many partitions, which regions, which dates. */
function describePlan(dataset: string, planned: BackfillPlan): string {
  const tally = Object.entries(planned.counts)
    .filter(([, v]) => v > 0)
    .map(([k, v]) => `${v} ${k}`)
    .join(", ");
  return (
    [
      `${dataset}: ${partitions(planned.total)}, dry run (nothing written): ${tally || "none"}`,
      ...groupPlans(planned.plans),
    ].join("\n") + "\n"
  );
}

/** `--shard i/n`, or `--shard auto` from the array job's environment; none for a whole run. */
function shardOf(opts: BackfillCliOptions): Shard | undefined {
  if (opts.shards !== undefined && opts.shard !== "auto")
    throw new UsageError("--shards goes with --shard auto (with --shard i/n the count is n)");
  if (opts.shard === undefined) return undefined;
  return opts.shard === "auto" ? shardFromEnvironment(process.env, opts.shards) : parseShard(opts.shard);
}

/** `--list-shards N`: each shard's region lanes, for engines that map a task over a list (Airflow, Argo). */
async function listShards(
  opts: Named & { from: string },
  task: Parameters<typeof planLanes>[0]["task"],
): Promise<void> {
  const count = opts.listShards as number;
  const lanes = await planLanes({
    dataset: opts.dataset,
    task,
    from: opts.from,
    to: opts.to,
    regions: regionsOf(opts),
  });
  const shards = dealLanes(lanes, count).map((mine, index) => ({
    shard: `${index}/${count}`,
    index,
    count,
    regions: mine.map((l) => l.region),
    partitions: mine.reduce((n, l) => n + l.dates.length, 0),
  }));
  if (opts.json) printJson(shards);
  else for (const s of shards) out(`${s.shard}\t${s.partitions} partitions\t${s.regions.join(",") || "-"}\n`);
}

/** The options once the dataset is known (named, or the config's only one). */
type Named = BackfillCliOptions & { dataset: string };

/**
 * `backfill`, and `run` as a backfill of one partition (`single`): the window, then a dry run, the shards' list or
 * the refresh itself, and the report. Returns the exit code.
 */
export async function runBackfill(given: BackfillCliOptions, single: boolean): Promise<number> {
  const json = Boolean(given.json);
  const config = await openConfig(given);
  const names = [...Object.keys(config.datasets), ...Object.keys(config.broken)];
  const cli = { ...given, dataset: given.dataset ?? onlyOne("--dataset", names, `datasets in ${config.path}`) };
  const { task, ref, params } = datasetOf(config, cli.dataset);
  // `run` of a dataset of one region needs no --region, as `cargo run` of one binary needs no --bin.
  if (single && cli.regions === undefined)
    cli.regions = onlyOne("--region", await regionsOfTask(task), `regions of ${cli.dataset}`);
  const to = windowEnd(cli);
  const opts = { ...cli, to, from: windowStart({ ...cli, to }, task.cadence) };
  const unfinished = unfinishedDateWarning(single ? "--date" : "--to", to, task.cadence);
  if (unfinished && !json) err(unfinished);
  const undated = latestOnlyNote(cli.dataset, task, opts.from, opts.to);
  if (undated && !json && !cli.quiet) err(undated);
  if (opts.listShards !== undefined) {
    await listShards(opts, task);
    return EXIT.ok;
  }
  const shard = shardOf(opts);
  const store = await loadStore(config.store);
  try {
    if (opts.dryRun) return await dryRun(opts, { store, task, params, config, shard });
    const job: RefreshJob = {
      dataset: opts.dataset,
      task: ref,
      store: config.store,
      versions: config.versions,
      params: params ?? {},
      from: opts.from,
      to: opts.to,
      ...(regionsOf(opts) ? { regions: regionsOf(opts) } : {}),
      ...(shard ? { shard } : {}),
      run: {
        runner: opts.workerProcesses ? "processes" : "threads",
        workers: single ? 0 : (opts.workers ?? availableParallelism()),
        concurrency: opts.concurrency,
        ...(opts.threads === undefined ? {} : { threads: opts.threads }),
        snapshots: opts.snapshot !== false,
      },
      each: partitionSettings(opts),
    };
    const stop = stopOnSignal();
    const progress = progressReporter(json, Boolean(cli.quiet), { verbose: Boolean(cli.verbose) });
    const { onStart, onStage, onResult } = progress;
    const summary = await runJob(job, { store, task, onStart, onStage, onResult, signal: stop.signal }).finally(() => {
      stop.dispose();
      progress.end();
    });
    const code = stop.exitCode ?? exitFor(summary.counts, summary.results);
    reportSummary(summary, code, opts, { single, sharded: shard !== undefined });
    return code;
  } finally {
    await store.close();
  }
}

type Opened = Awaited<ReturnType<typeof openConfig>>;

/** `--dry-run`: what a run would do to each partition, and why; 5 when one cannot be planned, 3 for the store. */
async function dryRun(
  opts: Named & { from: string; to: string },
  at: {
    store: ObjectStore;
    task: TaskDefinition;
    params: Record<string, unknown> | undefined;
    config: Opened;
    shard: Shard | undefined;
  },
): Promise<number> {
  const planned = await planBackfill({
    store: at.store,
    dataset: opts.dataset,
    task: at.task,
    versions: at.config.versions,
    params: at.params,
    from: opts.from,
    to: opts.to,
    regions: regionsOf(opts),
    concurrency: opts.concurrency * 2,
    shard: at.shard,
  });
  const code =
    worstFailureExit(planned.plans, { setup: false }) ??
    (planned.counts.error + planned.counts["missing-artifact"] > 0 ? EXIT.partitionFailed : EXIT.ok);
  if (opts.json) printJson({ ok: code === EXIT.ok, dryRun: true, ...planned });
  else out(describePlan(opts.dataset, planned));
  return code;
}

/** The report of a run: JSON, or the tally line (a backfill's, or `run`'s outcome line) and what was not done. */
function reportSummary(
  summary: BackfillSummary,
  code: number,
  opts: Named,
  { single, sharded }: { single: boolean; sharded: boolean },
): void {
  const json = Boolean(opts.json);
  // The manifest entries results carry for the backfill's own use are not part of the report.
  if (json) printJson({ ok: code === EXIT.ok, ...summary, results: summary.results.map(({ manifest: _, ...r }) => r) });
  else if ((!single && !(opts.quiet && code === EXIT.ok)) || code !== EXIT.ok)
    out(tallyLine(opts.dataset, summary, code));
  // `run` says what became of its partition in one line, with or without a terminal (issue 27 item 7).
  const only = single && !json && !opts.quiet && code === EXIT.ok ? summary.results[0] : undefined;
  if (only)
    out(
      `${only.partition.dataset} ${only.partition.region} ${only.partition.date}: ${only.outcome}: ${only.message}\n`,
    );
  if (!json && !sharded && summary.snapshot && "skipped" in summary.snapshot && startedAll(summary))
    err(`georefresh: no snapshot committed: ${summary.snapshot.skipped}\n`);
}

/** One line: the partitions' outcomes, what was retired and dropped, the snapshot, and an interruption. */
function tallyLine(dataset: string, summary: BackfillSummary, code: number): string {
  const tally = Object.entries(summary.counts)
    .filter(([, v]) => v > 0)
    .map(([k, v]) => `${v} ${k}`)
    .join(", ");
  const interrupted = !summary.notStarted
    ? ""
    : summary.stopped === "store"
      ? code === EXIT.transient
        ? `; stopped: the store is unreachable (see above), ${summary.notStarted} not started (run again later)`
        : `; stopped: the store cannot be used (see above), ${summary.notStarted} not started`
      : `; interrupted: ${summary.notStarted} not started (run again to finish)`;
  const snap = summary.snapshot && "id" in summary.snapshot ? `; snapshot ${summary.snapshot.id}` : "";
  return `${dataset}: ${partitions(summary.total)}: ${tally || "none"}${summary.retired.length ? `; retired ${summary.retired.length}` : ""}${droppedTally(summary.results)}${snappedTally(summary.results)}${ballparkTally(summary.results)}${linearizedTally(summary.results)}${snap}${interrupted}\n`;
}

/** Where a run's configuration comes from and what it prints, the same for `backfill` and `run`. */
export function outputOptions(command: Command): Command {
  return command
    .option("--config <path>", CONFIG_HELP, "georefresh.config.json")
    .option("--store <url>", "override the config's store")
    .option("--json", "print one JSON summary")
    .option("--quiet", "print nothing on success (errors still go to stderr)");
}

/** The flags every partition's stages read, registered once for `run` and `backfill`. */
export interface PartitionFlags {
  maxMemory?: number;
  overridePlausibility?: boolean;
}

export function partitionOptions(command: Command): Command {
  return command
    .option(
      "--max-memory <size>",
      "bytes each partition may buffer of its artifact beyond the task's rows, e.g. 256MiB (the default) or 2GiB; larger artifacts stage in a temp file (TMPDIR) and upload in parts. The bytes never depend on it",
      byteSize("--max-memory"),
    )
    .option("--override-plausibility", "promote even when plausibility objects (recorded in the manifest)");
}

/** The job's partition settings from those flags. */
function partitionSettings(flags: PartitionFlags): PartitionSettings {
  return { maxMemory: flags.maxMemory, overridePlausibility: flags.overridePlausibility };
}

/**
 * Whether every partition ran: then a snapshot skipped (refused or failed partitions, a shard, a commit that
 * failed) is said with its reason. An interrupted run says so in its summary instead.
 */
function startedAll(s: BackfillSummary): boolean {
  return !s.notStarted && s.results.length === s.total;
}

/** Rows the task dropped on purpose in the partitions this run promoted, and where to read why. */
function droppedTally(results: readonly RefreshResult[]): string {
  const with_ = results.filter((r) => r?.dropped);
  if (!with_.length) return "";
  const rows = with_.reduce((n, r) => n + (r.dropped ?? 0), 0);
  const first = with_[0] as RefreshResult;
  return `; ${rows} row${rows > 1 ? "s" : ""} dropped by the task in ${with_.length} partition${with_.length > 1 ? "s" : ""} (why: georefresh show ${first.partition.dataset} --region ${first.partition.region} --date ${first.partition.date})`;
}

/** Positions put on the world's edge in the partitions this run computed (docs/sources.md). */
function snappedTally(results: readonly RefreshResult[]): string {
  const with_ = results.filter((r) => r?.snapped);
  if (!with_.length) return "";
  const n = with_.reduce((k, r) => k + (r.snapped ?? 0), 0);
  return `; ${n} coordinate${n > 1 ? "s" : ""} within ${WORLD_EDGE_TOLERANCE}° past ±180°/±90° put on the world's edge in ${with_.length} partition${with_.length > 1 ? "s" : ""}`;
}

/** Positions read through PROJ's ballpark ("datumShift": "ballpark") in the partitions this run computed. */
function ballparkTally(results: readonly RefreshResult[]): string {
  const with_ = results.filter((r) => r?.ballpark);
  if (!with_.length) return "";
  const n = with_.reduce((k, r) => k + (r.ballpark ?? 0), 0);
  return `; ${n} position${n > 1 ? "s" : ""} through PROJ's ballpark datum shift in ${with_.length} partition${with_.length > 1 ? "s" : ""} (recorded in each artifact's georefresh:datum_shift)`;
}

/** Curves read as straight segments (docs/sources.md) in the partitions this run computed. */
function linearizedTally(results: readonly RefreshResult[]): string {
  const with_ = results.filter((r) => r?.linearized);
  if (!with_.length) return "";
  const n = with_.reduce((k, r) => k + (r.linearized ?? 0), 0);
  return `; ${n} curve${n > 1 ? "s" : ""} read as straight segments, as OGR makes them, in ${with_.length} partition${with_.length > 1 ? "s" : ""} (recorded in each artifact's georefresh:linearized_curves)`;
}

/** A feed with no {date} in its url is read for the window's last date only: say which dates that leaves alone. */
function latestOnlyNote(
  dataset: string,
  task: { latestOnly?: boolean; cadence: "daily" | "monthly" },
  from: string,
  to: string,
): string | undefined {
  if (!task.latestOnly) return undefined;
  const dates = logicalDates(from, to, task.cadence);
  if (dates.length < 2) return undefined;
  const last = dates[dates.length - 1] as string;
  return `georefresh: the feed url of ${dataset} has no {date}, so its file is the feed as it is now, not as it was: only ${last}, the window's last date, reads it; the ${dates.length - 1} earlier date${dates.length > 2 ? "s are" : " is"} left as ${dates.length > 2 ? "they are" : "it is"} (put {date} in the url to backfill them from dated files, or "undated": "every-date" in the source if the file never changes)\n`;
}

/** The one name there is, or a usage error listing them: what a flag left out defaults to. */
async function regionsOfTask(task: TaskDefinition): Promise<string[]> {
  return typeof task.regions === "function" ? task.regions() : task.regions;
}
