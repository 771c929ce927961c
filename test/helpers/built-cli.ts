/**
 * The compiled CLI (dist/) and a test task bundled to plain JavaScript, for the tests that start the CLI many
 * times with worker threads (the kill trials): from dist such a process reaches its first partition in about
 * 1.4 s, through tsx in 2.5 s, since every worker thread loads tsx and the sources again.
 */
import { execFileSync } from "node:child_process";
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { buildSync } from "esbuild";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
export const BUILT_MAIN = join(ROOT, "dist", "cli", "main.js");

function newest(dir: string): number {
  let t = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, e.name);
    t = Math.max(t, e.isDirectory() ? newest(path) : statSync(path).mtimeMs);
  }
  return t;
}

/**
 * Builds dist/ when a source file is newer than it (the test setup calls this once, before any test file runs):
 * a test of the compiled CLI never runs stale code. In CI `npm ci` has just built it.
 */
export function ensureBuilt(): void {
  let built = 0;
  try {
    built = statSync(BUILT_MAIN).mtimeMs;
  } catch {
    // not built yet
  }
  if (built >= newest(join(ROOT, "src"))) return;
  console.warn("test setup: dist/ is older than src/; building it (npm run build) for the tests of the built CLI");
  execFileSync("npm", ["run", "build"], { cwd: ROOT, stdio: ["ignore", "ignore", "inherit"] });
}

/** test/helpers/points-task.ts as one plain module at `dir`/points-task.mjs (its imports of src/ inside): its URL. */
export function bundledPointsTask(dir: string): string {
  const out = join(dir, "points-task.mjs");
  buildSync({
    entryPoints: [join(ROOT, "test", "helpers", "points-task.ts")],
    bundle: true,
    platform: "node",
    format: "esm",
    packages: "external",
    outfile: out,
    logLevel: "warning",
  });
  return pathToFileURL(out).href;
}
