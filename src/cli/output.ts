import { GeorefreshError } from "../errors.js";
import { redact } from "../store/secrets.js";
import { exitCodeOf } from "./exit-codes.js";

/** Everything the CLI prints goes through these two, so no URL is ever printed with its credentials. */
/** "1 partition", "2 partitions". */
export const partitions = (n: number) => `${n} partition${n === 1 ? "" : "s"}`;

export function out(text: string): void {
  process.stdout.write(redact(text));
}

export function err(text: string): void {
  process.stderr.write(redact(text));
}

/** Machine output: one JSON document on stdout. */
export function printJson(value: unknown): void {
  out(`${JSON.stringify(value, null, 2)}\n`);
}

/** Reports an error the way every command does, and returns the exit code it maps to (exit-codes.ts). */
export function reportError(error: unknown, json: boolean): number {
  const message = error instanceof Error ? error.message : String(error);
  if (json)
    printJson({
      ok: false,
      error: {
        type: error instanceof Error ? error.name : "Error",
        ...(error instanceof GeorefreshError ? { code: error.code } : {}),
        message,
      },
    });
  else err(`georefresh: ${message}\n`);
  return exitCodeOf(error);
}
