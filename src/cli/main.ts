#!/usr/bin/env node
import { readFileSync } from "node:fs";
import { Command, CommanderError } from "commander";
import { registerAnalyst } from "./commands/analyst.js";
import { registerDeliver } from "./commands/deliver.js";
import { registerDoctor } from "./commands/doctor.js";
import { registerFinalize } from "./commands/finalize.js";
import { registerGc } from "./commands/gc.js";
import { registerReport } from "./commands/report.js";
import { registerRun } from "./commands/run.js";
import { registerStac } from "./commands/stac.js";
import { registerValidate } from "./commands/validate.js";
import { registerVerify } from "./commands/verify.js";
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
