#!/usr/bin/env node
import { readFileSync } from "node:fs";
import { Command, CommanderError } from "commander";
import { registerAnalyst } from "./analyst.js";
import { registerDeliver } from "./deliver.js";
import { registerDoctor } from "./doctor.js";
import { registerFinalize } from "./finalize.js";
import { registerGc } from "./gc.js";
import { registerReport } from "./report.js";
import { registerRun } from "./run.js";
import { registerStac } from "./stac.js";
import { registerValidate } from "./validate.js";
import { registerVerify } from "./verify.js";
import { EXIT } from "./exit-codes.js";

const pkg = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version: string };

// `georefresh urls … | head` closes the pipe early: that is not an error.
process.stdout.on("error", (error: NodeJS.ErrnoException) => {
  if (error.code === "EPIPE") process.exit(0);
  throw error;
});

const program = new Command("georefresh")
  .description("Refresh partitioned GeoParquet datasets in object storage so that every task is safe to run again.")
  .version(pkg.version)
  .showHelpAfterError()
  .exitOverride();

registerDoctor(program);
registerRun(program);
registerFinalize(program);
registerAnalyst(program);
registerStac(program);
registerReport(program);
registerDeliver(program);
registerGc(program);
registerValidate(program);
registerVerify(program);

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
