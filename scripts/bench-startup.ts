/**
 * npm run bench:startup — how long the CLI takes to start, as a ratio to `node -e 0` measured in the same run:
 * `georefresh --help` (target ≤ 3×) and `georefresh ls us-counties` on a filesystem store (target ≤ 6×). Runs the
 * built CLI (dist/, as `npx georefresh` does; `npm run build` first), 10 runs each, interleaved, medians.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";

const MAIN = join(process.cwd(), "dist/cli/main.js");
if (!existsSync(MAIN)) {
  console.error("bench:startup: dist/cli/main.js is missing; run npm run build first");
  process.exit(2);
}
const store = mkdtempSync(join(tmpdir(), "georefresh-startup-"));
const run = (args: string[]) => {
  const t0 = performance.now();
  const r = spawnSync(process.execPath, args, { encoding: "utf8" });
  if (r.status !== 0) throw new Error(`${args.join(" ")} exited ${r.status}: ${r.stderr.slice(-500)}`);
  return (performance.now() - t0) / 1000;
};
try {
  // One partition to list.
  run([MAIN, "run", "--dataset", "us-counties", "--region", "CO", "--date", "2026-01-01", "--store", store]);
  const cases = {
    "node -e 0": ["-e", "0"],
    "georefresh --help": [MAIN, "--help"],
    "georefresh ls us-counties (fs store)": [MAIN, "ls", "us-counties", "--store", store],
  } as const;
  const times: Record<string, number[]> = {};
  for (let i = 0; i < 10; i++)
    for (const [name, args] of Object.entries(cases)) (times[name] ??= []).push(run([...args]));
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
  const base = median(times["node -e 0"] as number[]);
  const targets: Record<string, number> = { "georefresh --help": 3, "georefresh ls us-counties (fs store)": 6 };
  for (const [name, xs] of Object.entries(times)) {
    const m = median(xs);
    const target = targets[name];
    console.log(
      `${name.padEnd(38)} ${(m * 1000).toFixed(0).padStart(5)} ms  ${(m / base).toFixed(2)}× node -e 0${target ? ` (target ≤ ${target}×: ${m / base <= target ? "met" : "NOT met"})` : ""}`,
    );
  }
} finally {
  rmSync(store, { recursive: true, force: true });
}
