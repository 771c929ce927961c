import type { Command } from "commander";
import { isCalendarDate, trailingFrom } from "../calendar/calendar.js";
import { logicalDateAt, scheduledInstant } from "../calendar/schedule.js";
import { UsageError, wholeNumber } from "./context.js";

/** The date window options backfill and finalize share. */
export interface WindowOptions {
  from?: string;
  to: string;
  trailing?: number;
  regions?: string;
  timeZone: string;
  lag: number;
}

/** The window options of backfill and finalize: finalize must be given the same window as its backfill. */
export function windowOptions(command: Command, regionsHelp: string): Command {
  return command
    .option("--from <date>", "first logical date, YYYY-MM-DD")
    .requiredOption(
      "--to <date|scheduled>",
      "last logical date, YYYY-MM-DD (inclusive), never today's; or 'scheduled': the date the scheduler meant (GEOREFRESH_SCHEDULED_TIME, or a CronJob's GEOREFRESH_JOB_NAME) in --time-zone, --lag days earlier",
    )
    .option(
      "--trailing <n>",
      "instead of --from: the last n logical dates up to --to (days or months by the cadence), for nightly runs that re-check recent dates",
      wholeNumber(1),
    )
    .option("--time-zone <iana>", "with --to scheduled: the scheduler's time zone (a CronJob's timeZone)", "UTC")
    .option(
      "--lag <days>",
      "with --to scheduled: the logical date is this many days before the scheduled day",
      wholeNumber(0),
      1,
    )
    .option("--regions <list>", regionsHelp);
}

/**
 * A date flag's value, checked: a logical date must be a real calendar day (exit 2 otherwise), for every command
 * and every kind of dataset alike.
 */
export function dateFlag(flag: string, value: string): string {
  if (!isCalendarDate(value)) throw new UsageError(`--${flag} ${value} is not a calendar date YYYY-MM-DD`);
  return value;
}

/** `--from` and `--to` of a reading or comparing command: each a calendar date, and not reversed. */
export function dateRange(from: string | undefined, to: string | undefined): void {
  if (from !== undefined) dateFlag("from", from);
  if (to !== undefined) dateFlag("to", to);
  if (from !== undefined && to !== undefined && from > to) throw new UsageError(`--from ${from} is after --to ${to}`);
}

/** `--to DATE`, or `--to scheduled` resolved from the scheduler's record of when this run was due. */
export function windowEnd(opts: WindowOptions, env: Record<string, string | undefined> = process.env): string {
  if (opts.to !== "scheduled") return opts.to;
  return logicalDateAt(scheduledInstant(env), opts.timeZone, opts.lag);
}

/**
 * A warning when the window's last logical date has not ended yet (its day, or its month for a monthly dataset,
 * runs to today or later, in UTC): its data may still change. The wall clock is only shown here, never stored.
 */
export function unfinishedDateWarning(
  flag: string,
  last: string,
  cadence: "daily" | "monthly",
  today = new Date().toISOString().slice(0, 10),
): string | undefined {
  const ends = cadence === "monthly" ? lastDayOfMonth(last) : last;
  if (ends < today) return undefined;
  const period = cadence === "monthly" ? `its month ends ${ends}` : "its day";
  return `georefresh: warning: ${flag} ${last} has not ended yet (today is ${today} UTC; ${period}): its data may still change, so refresh it again once it has ended\n`;
}

function lastDayOfMonth(date: string): string {
  const d = new Date(`${date.slice(0, 7)}-01T00:00:00Z`);
  d.setUTCMonth(d.getUTCMonth() + 1, 0);
  return d.toISOString().slice(0, 10);
}

/** `--from`, or the first of the `--trailing N` logical dates up to `--to`: exactly one of them. */
export function windowStart(opts: WindowOptions & { to: string }, cadence: "daily" | "monthly"): string {
  if ((opts.from === undefined) === (opts.trailing === undefined))
    throw new UsageError("give --from DATE or --trailing N (the last N logical dates up to --to), one of them");
  if (!isCalendarDate(opts.to)) throw new UsageError(`--to ${opts.to} is not a calendar date YYYY-MM-DD`);
  if (opts.from !== undefined) {
    // A reversed or impossible window is the command line's mistake (exit 2), for every kind of dataset alike.
    if (!isCalendarDate(opts.from)) throw new UsageError(`--from ${opts.from} is not a calendar date YYYY-MM-DD`);
    if (opts.from > opts.to) throw new UsageError(`--from ${opts.from} is after --to ${opts.to}`);
    return opts.from;
  }
  try {
    return trailingFrom(opts.to, opts.trailing as number, cadence);
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

export const regionsOf = (opts: WindowOptions) =>
  opts.regions
    ?.split(",")
    .map((r) => r.trim())
    .filter(Boolean);
