import { performance } from "node:perf_hooks";
import { err } from "./output.js";
import type { Outcome, RefreshResult } from "../protocol/refresh.js";
import type { StageEvent } from "../stage-times.js";

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

/**
 * Without a terminal, a progress line at most this often (CI logs, array jobs): a 168-partition no-op prints none.
 * GEOREFRESH_PROGRESS_SECONDS sets it (a log that wants a line a minute, or a test that wants one now).
 */
export const PROGRESS_EVERY_MS = Number(process.env.GEOREFRESH_PROGRESS_SECONDS) * 1000 || 15_000;

/** What a partition in flight is doing: its stage, the count so far, since when (wall clock, shown only). */
interface Working {
  stage: string;
  detail?: string;
  since: number;
}

/** "parcels weld 2026-01-01: compute (read, reproject), 214,000 rows read, 12s in". */
function workingLine(partition: string, w: Working, now: number): string {
  return `${partition}: ${w.stage}${w.detail ? `, ${w.detail}` : ""}, ${formatDuration((now - w.since) / 1000)} in`;
}

/** A terminal line no wider than the terminal: a wrapped line would not be cleared by the next frame. */
const fit = (line: string) => {
  const width = process.stderr.columns;
  return width && line.length >= width ? `${line.slice(0, width - 2)}…` : line;
};

/**
 * Progress on stderr: a live bar on a terminal, with what the partition last heard from is doing (its stage, rows
 * read so far). Otherwise (CI logs, array jobs) a progress line every `everyMs` while partitions are in flight,
 * and a line per partition only for what went wrong, or for every partition with `verbose`. The wall clock here is
 * only ever shown, never stored.
 */
export function progressReporter(
  json: boolean,
  quiet = false,
  { verbose = false, everyMs = PROGRESS_EVERY_MS }: { verbose?: boolean; everyMs?: number } = {},
): {
  onStart: (total: number) => void;
  onStage: (event: StageEvent) => void;
  onResult: (r: RefreshResult, done: number, total: number) => void;
  end: () => void;
} {
  const tty = process.stderr.isTTY && !json && !quiet;
  const counts: Partial<Record<Outcome, number>> = {};
  const started = Date.now();
  let open = false; // a bar is on screen without its newline
  let lastLine = started;
  let lastFrame = 0;
  let [done, total] = [0, 0];
  // Partitions in flight, by "<dataset> <region> <date>"; the last one heard from is shown.
  const working = new Map<string, Working>();
  let latest: string | undefined;
  const current = (now: number) => {
    const w = latest === undefined ? undefined : working.get(latest);
    return w && latest !== undefined ? workingLine(latest, w, now) : undefined;
  };
  const frame = (now: number) => {
    lastFrame = now;
    const doing = done < total ? current(now) : undefined;
    // One partition: what it is doing, and nothing left once it is done (the outcome line says it).
    if (total <= 1) {
      err(`\r\x1b[K${doing ? fit(doing) : ""}`);
      open = doing !== undefined;
      return;
    }
    err(`\r\x1b[K${fit(`${progressBar(done, total, counts, now - started)}${doing ? ` · ${doing}` : ""}`)}`);
    open = done !== total;
    if (!open) err("\n");
  };
  // Without a terminal, a partition that runs long still says what it is doing, every everyMs.
  const ticker =
    !tty && !json && !quiet
      ? setInterval(
          () => {
            const now = Date.now();
            const doing = current(now);
            if (doing === undefined || now - lastLine < everyMs) return;
            lastLine = now;
            const bar = total > 1 ? `${progressBar(done, total, counts, now - started, 20)} · ` : "";
            err(`progress: ${bar}${doing}\n`);
          },
          Math.max(50, Math.min(everyMs, 1_000)),
        )
      : undefined;
  ticker?.unref();
  // A message that repeats word for word (one missing feed behind every date) is printed once, then counted.
  const repeats = new Map<string, number>();
  const repeated = (r: RefreshResult) => {
    const said = `${r.outcome}: ${r.message}`;
    const n = repeats.get(said);
    repeats.set(said, (n ?? -1) + 1);
    return n !== undefined && !verbose;
  };
  return {
    onStart(planned) {
      total = planned;
    },
    onStage(event) {
      const now = Date.now();
      const w = working.get(event.partition);
      if (event.stage !== undefined) working.set(event.partition, { stage: event.stage, since: now });
      else if (w) w.detail = event.detail;
      else return;
      latest = event.partition;
      // A new stage at once; a count (which arrives per batch) at most ten times a second.
      if (tty && (event.stage !== undefined || now - lastFrame >= 100)) frame(now);
    },
    onResult(r, n, of) {
      [done, total] = [n, of];
      const name = `${r.partition.dataset} ${r.partition.region} ${r.partition.date}`;
      working.delete(name);
      if (latest === name) latest = working.keys().next().value;
      counts[r.outcome] = (counts[r.outcome] ?? 0) + 1;
      const failed =
        r.outcome === "invalid" || r.outcome === "failed" || r.outcome === "superseded" || r.outcome === "blocked";
      const bad = failed && !repeated(r);
      if (tty) {
        if (bad) err(`\r\x1b[K${r.outcome}: ${r.partition.region} ${r.partition.date}: ${r.message}\n`);
        frame(Date.now());
      } else if (!json && (bad || (verbose && total > 1 && !quiet))) {
        err(
          `${done}/${total} ${r.outcome} ${r.partition.dataset} ${r.partition.region} ${r.partition.date}: ${r.message}\n`,
        );
      } else if (!json && !quiet && !failed && total > 1 && done < total && Date.now() - lastLine >= everyMs) {
        lastLine = Date.now();
        const doing = current(lastLine);
        err(`progress: ${progressBar(done, total, counts, lastLine - started, 20)}${doing ? ` · ${doing}` : ""}\n`);
      }
    },
    // An interrupted run stops mid-bar: end the line so the summary starts on its own.
    end() {
      if (ticker) clearInterval(ticker);
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
  const started = performance.now();
  let last = started;
  return (done, total) => {
    if (json || quiet) return;
    if (process.stderr.isTTY) {
      err(`\r\x1b[K${what}: ${progressBar(done, total, {}, performance.now() - started)}${done === total ? "\n" : ""}`);
    } else if (done < total && performance.now() - last >= everyMs) {
      last = performance.now();
      err(`progress: ${what}: ${progressBar(done, total, {}, last - started, 20)}\n`);
    }
  };
}

/** Progress of a command of several counted steps ("stac parcels: manifests read"), each as `stepProgress`. */
export function stepsProgress(
  what: string,
  json: boolean,
  quiet: boolean,
): (step: string, done: number, total: number) => void {
  const steps = new Map<string, (done: number, total: number) => void>();
  return (step, done, total) => {
    let report = steps.get(step);
    if (!report) steps.set(step, (report = stepProgress(`${what}: ${step}`, json, quiet)));
    report(done, total);
  };
}
