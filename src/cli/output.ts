import { isStoreError } from "../store/errors.js";
import { EXIT } from "./exit-codes.js";

/** Machine output: one JSON document on stdout. */
export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

/** Reports an error the way every command does, and returns the exit code it maps to. */
export function reportError(error: unknown, json: boolean): number {
  const code = isStoreError(error) ? EXIT.store : EXIT.failed;
  const message = error instanceof Error ? error.message : String(error);
  if (json) printJson({ ok: false, error: { type: error instanceof Error ? error.name : "Error", message } });
  else process.stderr.write(`georefresh: ${message}\n`);
  return code;
}
