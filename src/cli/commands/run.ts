import type { Command } from "commander";
import { isCalendarDate } from "../../calendar/calendar.js";
import { action } from "../action.js";
import { UsageError } from "../context.js";
import type { CommonOptions } from "../context.js";
import { DESCRIPTIONS } from "../descriptions.js";
import { outputOptions, partitionOptions, OUTCOME_HELP, runBackfill } from "../refresh-run.js";
import type { PartitionFlags } from "../refresh-run.js";

/** `run`: one partition, as a backfill of one region and one date. */
export function registerRun(program: Command): void {
  const run = program
    .command("run")
    .description(DESCRIPTIONS.run)
    .option("--dataset <name>", "dataset from the config (default: its only one)")
    .option("--region <region>", "region (default: the dataset's only one)")
    .requiredOption("--date <date>", "logical date, YYYY-MM-DD");
  partitionOptions(run).option(
    "--dry-run",
    "write nothing: say whether a run would compute, reconcile or leave the partition, and why",
  );
  outputOptions(run)
    .addHelpText("after", OUTCOME_HELP)
    .action(
      action(
        (
          opts: CommonOptions &
            PartitionFlags & {
              dataset?: string;
              region?: string;
              date: string;
              dryRun?: boolean;
            },
        ) => {
          // The window is this one date: a bad one is --date's mistake, not the window's (issue 27 item 8).
          if (!isCalendarDate(opts.date)) throw new UsageError(`--date ${opts.date} is not a calendar date YYYY-MM-DD`);
          return runBackfill(
            {
              ...opts,
              from: opts.date,
              to: opts.date,
              ...(opts.region === undefined ? {} : { regions: opts.region }),
              concurrency: 1,
              timeZone: "UTC",
              lag: 0,
            },
            true,
          );
        },
      ),
    );
}
