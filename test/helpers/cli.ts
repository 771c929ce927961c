import { spawn } from "node:child_process";
import type { ChildProcessWithoutNullStreams } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const MAIN = fileURLToPath(new URL("../../src/cli/main.ts", import.meta.url));

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Starts the georefresh CLI from source in its own process, for a test that signals or watches it while it runs. */
export function spawnCli(args: string[], env: Record<string, string> = {}): ChildProcessWithoutNullStreams {
  return spawn(process.execPath, ["--import", "tsx", MAIN, ...args], {
    env: { ...process.env, ...env },
    stdio: ["pipe", "pipe", "pipe"],
  });
}

/** Runs the georefresh CLI from source in a separate process, as a user's shell would. */
export function runCli(args: string[], env: Record<string, string> = {}): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", "tsx", MAIN, ...args], {
      env: { ...process.env, ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

/**
 * A config in `dir` whose dataset "bad" is a task that publishes a good Parquet fixture, on `store`: for the
 * suites that run the CLI against a store that should refuse them.
 */
export function writeFixtureTaskConfig(dir: string, store: string): string {
  const helper = pathToFileURL(fileURLToPath(new URL("./parquet-task.ts", import.meta.url))).href;
  const good = fileURLToPath(new URL("../fixtures/bad/good.parquet", import.meta.url));
  writeFileSync(
    join(dir, "task.mjs"),
    `import { parquetTask } from ${JSON.stringify(helper)};\nexport default parquetTask(${JSON.stringify(good)});\n`,
  );
  writeFileSync(join(dir, "config.json"), JSON.stringify({ store, datasets: { bad: { module: "./task.mjs" } } }));
  return join(dir, "config.json");
}
