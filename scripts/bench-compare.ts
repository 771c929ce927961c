/**
 * npm run bench:compare -- <git rev> — the same work on the code of another commit and on this tree, in one run,
 * as a ratio: the main job's backfills (us-counties and city-catchments, 3 months) from an empty store and then as a
 * no-op re-run, each tree 3 times, alternating so drift on the machine hits both alike. For refactors that must
 * not be slower. The other commit is checked out as a git worktree beside this tree's node_modules.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";

const rev = process.argv[2];
if (!rev) {
  console.error("usage: npm run bench:compare -- <git rev>   (e.g. HEAD~3)");
  process.exit(2);
}
const here = process.cwd();
const work = mkdtempSync(join(tmpdir(), "georefresh-compare-"));
const before = join(work, "before");
execFileSync("git", ["worktree", "add", "--detach", before, rev], { stdio: "ignore" });
symlinkSync(join(here, "node_modules"), join(before, "node_modules"));

const DATASETS = ["us-counties", "city-catchments"];
function job(tree: string, store: string): number {
  const t0 = performance.now();
  for (const dataset of DATASETS) {
    const r = spawnSync(
      process.execPath,
      [
        "--import",
        "tsx",
        join(tree, "src/cli/main.ts"),
        "backfill",
        "--dataset",
        dataset,
        "--from",
        "2026-01-01",
        "--to",
        "2026-03-31",
        "--store",
        store,
        "--config",
        join(tree, "georefresh.config.json"),
      ],
      { cwd: tree, encoding: "utf8" },
    );
    if (r.status !== 0) throw new Error(`${tree}: backfill ${dataset} exited ${r.status}: ${r.stderr.slice(-1000)}`);
  }
  return (performance.now() - t0) / 1000;
}

/** sha256 of every artifact in a filesystem store, by key. */
function artifacts(store: string): Record<string, string> {
  const root = join(store, "artifacts");
  const out: Record<string, string> = {};
  // Sorted: a directory's listing order is the filesystem's (tmpfs lists newest first), not the data's.
  for (const f of readdirSync(root, { recursive: true }).map(String).sort()) {
    if (f.endsWith(".parquet"))
      out[f] = createHash("sha256")
        .update(readFileSync(join(root, f)))
        .digest("hex");
  }
  return out;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
const times: Record<"before" | "after", { first: number[]; again: number[] }> = {
  before: { first: [], again: [] },
  after: { first: [], again: [] },
};
try {
  for (let round = 0; round < 3; round++) {
    for (const [label, tree] of [
      ["before", before],
      ["after", here],
    ] as const) {
      const store = join(work, `store-${label}-${round}`);
      times[label].first.push(job(tree, store));
      times[label].again.push(job(tree, store));
      if (round > 0) rmSync(store, { recursive: true, force: true });
    }
  }
  const [b, a] = [artifacts(join(work, "store-before-0")), artifacts(join(work, "store-after-0"))];
  const same = JSON.stringify(b) === JSON.stringify(a);
  const differ = [...new Set([...Object.keys(a), ...Object.keys(b)])].filter((k) => a[k] !== b[k]);
  console.log(
    `artifacts: ${Object.keys(a).length} on this tree, ${Object.keys(b).length} on ${rev}: ${same ? "byte-identical (every sha256 equal)" : `DIFFERENT (${differ.length}: ${differ.slice(0, 5).join(", ")}${differ.length > 5 ? ", …" : ""})`}`,
  );
  if (!same) process.exitCode = 1;
  for (const part of ["first", "again"] as const) {
    const b = median(times.before[part]);
    const a = median(times.after[part]);
    console.log(
      `main job (${DATASETS.join(" + ")}, 3 months), ${part === "first" ? "first run" : "no-op re-run"}: ${rev} ${b.toFixed(2)} s, this tree ${a.toFixed(2)} s: ${(b / a).toFixed(2)}× (≥ 1 is no slower)`,
    );
  }
} finally {
  execFileSync("git", ["worktree", "remove", "--force", before], { stdio: "ignore" });
  if (existsSync(work)) rmSync(work, { recursive: true, force: true });
}
