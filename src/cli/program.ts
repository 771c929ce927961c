import { readFileSync } from "node:fs";
import { Command, CommanderError } from "commander";
import { takeExitCode } from "./action.js";
import { COMMANDS } from "./commands.js";
import type { CommandName } from "./commands.js";
import { UsageError } from "./context.js";
import { EXIT, exitCodesHelp } from "./exit-codes.js";
import { reportError } from "./output.js";

const pkg = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version: string };

/**
 * `--help` marks the options a command cannot run without (commander lists them like any other), and says every
 * default one way, `(default: 8080)`, bare as a user types it: commander quotes strings and prints `[]`.
 */
function markRequired(command: Command): void {
  for (const option of command.options) {
    if (option.mandatory && !option.description.includes("(required)"))
      option.description = `${option.description} (required)`;
    if (option.defaultValue !== undefined && option.defaultValueDescription === undefined && !option.negate)
      option.defaultValueDescription = Array.isArray(option.defaultValue)
        ? option.defaultValue.join(",") || "none"
        : String(option.defaultValue);
  }
  for (const sub of command.commands) markRequired(sub);
}

/**
 * Runs one georefresh command line (the arguments after the program name) and returns its exit code. Only the
 * command being run is loaded (with `help <command>`, that one): its module registers it in full. Without one,
 * every command is listed from its description alone, for `--help` and for commander's suggestions.
 */
export async function runCommandLine(args: readonly string[]): Promise<number> {
  const program = new Command("georefresh")
    .description("Refresh partitioned GeoParquet datasets in object storage so that every task is safe to run again.")
    .version(pkg.version)
    // After a mistake, the error (with its "Did you mean …?") stays on screen: a pointer to --help, not 40 lines of it.
    .showHelpAfterError("(add --help to see every option)")
    .exitOverride()
    .addHelpText(
      "after",
      '\nDatasets are named in georefresh.config.json: a feed file per region read by config alone ("source":\n' +
        'docs/sources.md), or your own task module ("module": docs/tasks.md).\n' +
        exitCodesHelp(),
    );
  const first = args.find((a) => !a.startsWith("-"));
  const named = first === "help" ? args[args.indexOf("help") + 1] : first;
  const isCommand = (name: string | undefined): name is CommandName =>
    name !== undefined && Object.hasOwn(COMMANDS, name);
  if (isCommand(named)) (await COMMANDS[named].register())(program);
  else for (const [name, { description }] of Object.entries(COMMANDS)) program.command(name).description(description);
  for (const command of program.commands) markRequired(command);

  takeExitCode(); // nothing left from an earlier run in this process (the tests run many)
  try {
    await program.parseAsync([...args], { from: "user" });
    return takeExitCode();
  } catch (error) {
    // --help and --version end here with code 0; anything else is a usage error.
    if (error instanceof CommanderError) {
      if (error.exitCode === 0) return EXIT.ok;
      // commander said it on stderr; a machine reading --json gets the same error, with its code, on stdout
      if (args.includes("--json")) reportError(new UsageError(error.message.replace(/^error: /, "")), true);
      return EXIT.usage;
    }
    throw error;
  }
}
