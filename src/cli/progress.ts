import { err } from "./output.js";
import type { Outcome, RefreshResult } from "../protocol/refresh.js";

/** "42s", "12m05s", "3h07m": for people, never for keys. */
export function formatDuration(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, "0")}s`;
  return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, "0")}m`;
}

/** The start of a long message, to say which one a count refers to. */
const brief = (message: string) => (message.length > 80 ? `${message.slice(0, 79)}…` : message);

/** One frame of the terminal bar: fill, count, outcomes so far, rate and the time left at that rate. */
export function progressBar(
  done: number,
  total: number,
  counts: Partial<Record<Outcome, number>>,
  elapsedMs: number,
  width = 30,
): string {
  const filled = Math.round((done / Math.max(1, total)) * width);
  const tally = Object.entries(counts)
    .map(([k, v]) => `${k} ${v}`)
    .join(", ");
  const rate = elapsedMs > 0 ? done / (elapsedMs / 1000) : 0;
  const left = rate > 0 && done < total ? `, ~${formatDuration((total - done) / rate)} left` : "";
  return `[${"#".repeat(filled)}${".".repeat(width - filled)}] ${done}/${total} ${tally} (${rate.toFixed(1)}/s${left})`;
}

/** Without a terminal, a progress line at most this often (CI logs, array jobs): a 168-partition no-op prints none. */
export const PROGRESS_EVERY_MS = 15_000;

/**
 * Progress on stderr: a live bar on a terminal. Otherwise (CI logs, array jobs) a progress line every
 * `everyMs`, and a line per partition only for what went wrong, or for every partition with `verbose`. Quiet for
 * a single partition unless something went wrong. The wall clock here is only ever shown, never stored.
 */
export function progressReporter(
  json: boolean,
  quiet = false,
  { verbose = false, everyMs = PROGRESS_EVERY_MS }: { verbose?: boolean; everyMs?: number } = {},
): {
  onResult: (r: RefreshResult, done: number, total: number) => void;
  end: () => void;
} {
  const tty = process.stderr.isTTY && !json && !quiet;
  const counts: Partial<Record<Outcome, number>> = {};
  const started = Date.now();
  let open = false; // a bar is on screen without its newline
  let lastLine = started;
  // A message that repeats word for word (one missing feed behind every date) is printed once, then counted.
  const repeats = new Map<string, number>();
  const repeated = (r: RefreshResult) => {
    const said = `${r.outcome}: ${r.message}`;
    const n = repeats.get(said);
    repeats.set(said, (n ?? -1) + 1);
    return n !== undefined && !verbose;
  };
  return {
    onResult(r, done, total) {
      counts[r.outcome] = (counts[r.outcome] ?? 0) + 1;
      const failed =
        r.outcome === "invalid" || r.outcome === "failed" || r.outcome === "superseded" || r.outcome === "blocked";
      const bad = failed && !repeated(r);
      if (tty) {
        if (bad) err(`\r\x1b[K${r.outcome}: ${r.partition.region} ${r.partition.date}: ${r.message}\n`);
        err(`\r\x1b[K${progressBar(done, total, counts, Date.now() - started)}`);
        open = done !== total;
        if (!open) err("\n");
      } else if (!json && (bad || (verbose && total > 1 && !quiet))) {
        err(
          `${done}/${total} ${r.outcome} ${r.partition.dataset} ${r.partition.region} ${r.partition.date}: ${r.message}\n`,
        );
      } else if (!json && !quiet && !failed && total > 1 && done < total && Date.now() - lastLine >= everyMs) {
        lastLine = Date.now();
        err(`progress: ${progressBar(done, total, counts, lastLine - started, 20)}\n`);
      }
    },
    // An interrupted run stops mid-bar: end the line so the summary starts on its own.
    end() {
      if (open) err("\n");
      open = false;
      if (json) return;
      for (const [said, n] of repeats)
        if (n > 0 && !verbose)
          err(
            `… and ${n} more partition${n > 1 ? "s" : ""} ${said.slice(0, said.indexOf(":"))} the same way (${brief(said.slice(said.indexOf(":") + 2))})\n`,
          );
    },
  };
}

/**
 * Progress of a step counted in units (a sink's partitions): a live bar on a terminal, else a line every
 * `everyMs` until the last unit, as `backfill` does; nothing under --json or --quiet.
 */
export function stepProgress(
  what: string,
  json: boolean,
  quiet: boolean,
  { everyMs = PROGRESS_EVERY_MS }: { everyMs?: number } = {},
): (done: number, total: number) => void {
  const started = Date.now();
  let last = started;
  return (done, total) => {
    if (json || quiet) return;
    if (process.stderr.isTTY) {
      err(`\r\x1b[K${what}: ${progressBar(done, total, {}, Date.now() - started)}${done === total ? "\n" : ""}`);
    } else if (done < total && Date.now() - last >= everyMs) {
      last = Date.now();
      err(`progress: ${what}: ${progressBar(done, total, {}, last - started, 20)}\n`);
    }
  };
}
