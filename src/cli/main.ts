#!/usr/bin/env node
import { readFileSync } from "node:fs";
import { Command, CommanderError } from "commander";
import { COMMANDS } from "./commands.js";
import type { CommandName } from "./commands.js";
import { EXIT, exitCodesHelp } from "./exit-codes.js";

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
  .exitOverride()
  .addHelpText("after", exitCodesHelp());

/**
 * Only the command being run is loaded (with `help <command>`, that one): its module registers it in full. Without
 * one, every command is listed from its description alone, for `--help` and for commander's suggestions.
 */
const args = process.argv.slice(2);
const first = args.find((a) => !a.startsWith("-"));
const named = first === "help" ? args[args.indexOf("help") + 1] : first;
const isCommand = (name: string | undefined): name is CommandName =>
  name !== undefined && Object.hasOwn(COMMANDS, name);
if (isCommand(named)) (await COMMANDS[named].register())(program);
else for (const [name, { description }] of Object.entries(COMMANDS)) program.command(name).description(description);

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
