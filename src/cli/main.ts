#!/usr/bin/env node
import { readFileSync } from "node:fs";
import { Command, CommanderError } from "commander";
import { registerDoctor } from "./doctor.js";
import { registerRun } from "./run.js";
import { registerValidate } from "./validate.js";
import { EXIT } from "./exit-codes.js";

const pkg = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version: string };

const program = new Command("georefresh")
  .description("Refresh partitioned GeoParquet datasets in object storage so that every task is safe to run again.")
  .version(pkg.version)
  .showHelpAfterError()
  .exitOverride();

registerDoctor(program);
registerRun(program);
registerValidate(program);

try {
  await program.parseAsync(process.argv);
} catch (error) {
  if (error instanceof CommanderError) {
    // --help and --version end here with code 0; anything else is a usage error.
    process.exitCode = error.exitCode === 0 ? EXIT.ok : EXIT.usage;
  } else {
    throw error;
  }
}
