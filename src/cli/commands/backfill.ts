import type { Command } from "commander";
import { action } from "../action.js";
import { wholeNumber } from "../context.js";
import { DESCRIPTIONS } from "../descriptions.js";
import { outputOptions, partitionOptions, OUTCOME_HELP, runBackfill } from "../refresh-run.js";
import type { BackfillCliOptions } from "../refresh-run.js";
import { windowOptions } from "../window.js";

/** `backfill`: every region × logical date of a dataset in a window, on workers, in shards, or as a dry run. */
export function registerBackfill(program: Command): void {
  const backfill = windowOptions(
    program
      .command("backfill")
      .description(DESCRIPTIONS.backfill)
      .option("--dataset <name>", "dataset from the config (default: its only one)"),
    "only these regions, comma-separated (no tombstoning then)",
  ).option("--concurrency <n>", "partitions in flight", wholeNumber(1), 4);
  workerOptions(shardOptions(backfill));
  partitionOptions(backfill)
    .option(
      "--no-snapshot",
      "neither use the latest dataset snapshot to settle unchanged partitions nor commit one at the end (docs/snapshots.md)",
    )
    .option(
      "--dry-run",
      "write nothing: say which partitions a run would compute, reconcile or leave, and why (pins, inputs, code)",
    );
  outputOptions(backfill)
    .option(
      "--verbose",
      "without a terminal, a line per partition on stderr (by default: progress every 15 s, and the partitions that went wrong)",
    )
    .addHelpText(
      "after",
      `${OUTCOME_HELP}\n\nWith --dry-run: 0 when every partition can be planned, 5 when one cannot (or its manifest names a missing\nartifact), 3 when the store is unusable.`,
    )
    .action(action((opts: BackfillCliOptions) => runBackfill(opts, false)));
}

/** Array jobs: which shard this is, how many there are, or the list of them. */
function shardOptions(command: Command): Command {
  return command
    .option(
      "--shard <i/n|auto>",
      "only shard i of n (0-based): whole region lanes dealt by the plan alone, for array jobs without a coordinator; auto takes i from JOB_COMPLETION_INDEX, SLURM_ARRAY_TASK_ID or AWS_BATCH_JOB_ARRAY_INDEX",
    )
    .option(
      "--shards <n>",
      "with --shard auto: the number of shards (else SLURM_ARRAY_TASK_COUNT or GEOREFRESH_SHARDS)",
      wholeNumber(1),
    )
    .option(
      "--list-shards <n>",
      "print how the plan splits into n shards (regions and partitions of each; --json for Airflow expand / Argo withParam) and exit",
      wholeNumber(1),
    );
}

/** Where partitions run: worker threads or processes, and the threads of one on this thread. */
function workerOptions(command: Command): Command {
  return command
    .option(
      "--workers <n>",
      "worker threads that refresh whole partitions (default: one per core; 0 = this thread)",
      wholeNumber(0),
    )
    .option(
      "--worker-processes",
      "run the --workers as child processes with --single-threaded-gc: faster on CPU-heavy tasks, and a task that crashes its process fails only its partition",
    )
    .option(
      "--threads <n>",
      "partitions on this thread (--workers 0, or a plan of one partition): threads for geometry validation and for encoding row groups (default: one per core; none for one partition)",
      wholeNumber(0),
    );
}
