import { trailingFrom } from "../pipeline/calendar.js";
import { UsageError } from "./context.js";

/** The date window options backfill and finalize share. */
export interface WindowOptions {
  from?: string;
  to: string;
  trailing?: number;
  regions?: string;
}

/** `--from`, or the first of the `--trailing N` logical dates up to `--to`: exactly one of them. */
export function windowStart(opts: WindowOptions, cadence: "daily" | "monthly"): string {
  if ((opts.from === undefined) === (opts.trailing === undefined)) throw new UsageError("give --from DATE or --trailing N (the last N logical dates up to --to), one of them");
  if (opts.from !== undefined) return opts.from;
  try {
    return trailingFrom(opts.to, opts.trailing as number, cadence);
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

export const regionsOf = (opts: WindowOptions) => opts.regions?.split(",").map((r) => r.trim()).filter(Boolean);
