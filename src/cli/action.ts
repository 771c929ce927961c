import type { Command } from "commander";
import { EXIT } from "./exit-codes.js";
import { reportError } from "./output.js";

/**
 * The one route from a command to its exit code. A command's action returns its code (from the one table,
 * exit-codes.ts); an error it throws becomes its code through reportError (as JSON under --json). runCommandLine
 * takes the code, and main.ts alone hands it to the process.
 */
let settled: number | undefined;

export function action<A extends unknown[]>(
  run: (...args: A) => Promise<number> | number,
): (...args: A) => Promise<void> {
  return async (...args: A) => {
    // commander passes the command itself last.
    const command = args[args.length - 1] as Command;
    try {
      settled = await run(...args);
    } catch (error) {
      settled = reportError(error, Boolean(command.opts().json));
    }
  };
}

/** The code of the command that just ran, once (ok when none ran: --help, --version). */
export function takeExitCode(): number {
  const code = settled ?? EXIT.ok;
  settled = undefined;
  return code;
}
