import { spawn } from "node:child_process";
import type { ChildProcessWithoutNullStreams } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join, resolve as resolvePath } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { BUILT_MAIN } from "./built-cli.js";

const MAIN = fileURLToPath(new URL("../../src/cli/main.ts", import.meta.url));
/** tsx's loader by path, so that a CLI started in another directory (no node_modules there) still finds it. */
const TSX = new URL("../../node_modules/tsx/dist/loader.mjs", import.meta.url).href;

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * How a CLI process starts: from the compiled CLI (dist/, kept fresh by the test setup: helpers/built-cli.ts)
 * when its config loads no module of its own, else from source through tsx, which a config's `.ts` task or
 * transport needs. The same code either way; the compiled CLI starts about 0.35 s sooner.
 */
function entry(args: string[], cwd?: string): string[] {
  const at = args.findIndex((a) => a === "--config" || a.startsWith("--config="));
  const given = at < 0 ? undefined : args[at]?.includes("=") ? args[at]?.split("=")[1] : args[at + 1];
  const config = resolvePath(cwd ?? process.cwd(), given ?? "georefresh.config.json");
  let text = "";
  try {
    text = readFileSync(config, "utf8");
  } catch {
    // no config: a command on --store, or one that fails before any module could load
  }
  return /"module"\s*:/.test(text) ? ["--import", TSX, MAIN] : [BUILT_MAIN];
}

/** Starts the georefresh CLI in its own process, for a test that signals or watches it while it runs. */
export function spawnCli(args: string[], env: Record<string, string> = {}): ChildProcessWithoutNullStreams {
  return spawn(process.execPath, [...entry(args), ...args], {
    env: { ...process.env, ...env },
    stdio: ["pipe", "pipe", "pipe"],
  });
}

/** Runs the georefresh CLI in a separate process, as a user's shell would (in `cwd`, if given). */
export function runCli(args: string[], env: Record<string, string> = {}, cwd?: string): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...entry(args, cwd), ...args], {
      cwd,
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

let inProcess: Promise<unknown> = Promise.resolve();

/**
 * Runs the georefresh CLI in this process, as `runCli` does in its own: the same code path from the argument list
 * on (cli/program.ts), with stdout, stderr, the environment and the exit code captured and restored. For tests
 * that need no process boundary (no signal, no kill, no module state of their own): no process start, no module
 * loading per call. Calls run one at a time, since output and environment are the process's.
 */
export function runCliHere(args: string[], env: Record<string, string> = {}): Promise<CliResult> {
  const run = async (): Promise<CliResult> => {
    const { runCommandLine } = await import("../../src/cli/program.js");
    const savedEnv = { ...process.env };
    const writes = { out: process.stdout.write, err: process.stderr.write };
    let stdout = "";
    let stderr = "";
    const capture = (to: "out" | "err") =>
      ((chunk: string | Uint8Array, ...rest: unknown[]) => {
        const text = typeof chunk === "string" ? chunk : Buffer.from(chunk).toString();
        if (to === "out") stdout += text;
        else stderr += text;
        const done = rest.find((r) => typeof r === "function") as (() => void) | undefined;
        done?.();
        return true;
      }) as typeof process.stdout.write;
    Object.assign(process.env, env);
    process.stdout.write = capture("out");
    process.stderr.write = capture("err");
    let code: number;
    try {
      code = await runCommandLine(args);
    } catch (error) {
      // What node prints for an uncaught error, and its exit code.
      stderr += `${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`;
      code = 1;
    } finally {
      process.stdout.write = writes.out;
      process.stderr.write = writes.err;
      for (const k of Object.keys(process.env)) if (!(k in savedEnv)) delete process.env[k];
      Object.assign(process.env, savedEnv);
    }
    return { code, stdout, stderr };
  };
  const result = inProcess.then(run, run);
  inProcess = result.catch(() => undefined);
  return result;
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
