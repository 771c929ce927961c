import type { Outcome, RefreshResult } from "../pipeline/refresh.js";

/**
 * Progress on stderr: a live bar on a terminal, one line per partition otherwise (CI logs, array jobs). Quiet
 * for a single partition unless something went wrong.
 */
export function progressReporter(json: boolean): { onResult: (r: RefreshResult, done: number, total: number) => void; end: () => void } {
  const tty = process.stderr.isTTY && !json;
  const counts: Partial<Record<Outcome, number>> = {};
  return {
    onResult(r, done, total) {
      counts[r.outcome] = (counts[r.outcome] ?? 0) + 1;
      const bad = r.outcome === "invalid" || r.outcome === "failed" || r.outcome === "superseded";
      if (tty) {
        const width = 30;
        const filled = Math.round((done / total) * width);
        const tally = Object.entries(counts).map(([k, v]) => `${k} ${v}`).join(", ");
        if (bad) process.stderr.write(`\r\x1b[K${r.outcome}: ${r.partition.region} ${r.partition.date}: ${r.message}\n`);
        process.stderr.write(`\r\x1b[K[${"#".repeat(filled)}${".".repeat(width - filled)}] ${done}/${total} ${tally}`);
        if (done === total) process.stderr.write("\n");
      } else if (!json && (total > 1 || bad)) {
        process.stderr.write(`${done}/${total} ${r.outcome} ${r.partition.dataset} ${r.partition.region} ${r.partition.date}: ${r.message}\n`);
      }
    },
    end() {},
  };
}
