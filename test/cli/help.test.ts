/**
 * `--help` reads the same on every command: every option described, defaults said one way (bare, as typed:
 * commander's own form quotes strings and prints `[]`), the --config text the same wherever it is optional or
 * not, an "Exit codes" section, examples a shell runs as printed (a `?` or `&` outside quotes is a glob or a
 * background job), one way to ask for JSON, and the dataset defaulting to the only one wherever it is a flag.
 */
import { Command } from "commander";
import { describe, expect, it } from "vitest";
import { COMMANDS } from "../../src/cli/commands.js";
import type { CommandName } from "../../src/cli/commands.js";
import { runCliHere } from "../helpers/cli.js";

const names = Object.keys(COMMANDS) as CommandName[];

async function commandOf(name: CommandName): Promise<Command> {
  const program = new Command("georefresh");
  (await COMMANDS[name].register())(program);
  return program.commands.find((c) => c.name() === name) as Command;
}

async function helpOf(name: string): Promise<string> {
  const r = await runCliHere([name, "--help"]);
  expect(r.code, r.stderr).toBe(0);
  return r.stdout;
}

/** Words of an example line outside quotes. */
function unquoted(line: string): string {
  return line.replace(/"[^"]*"|'[^']*'/g, "");
}

describe("--help on every command", () => {
  it.each(names)("%s: options described, defaults one way, exit codes said, examples shell-safe", async (name) => {
    const command = await commandOf(name);
    for (const option of command.options.filter((o) => !o.hidden))
      expect(option.description.trim().length, `${name} ${option.flags} has no description`).toBeGreaterThan(3);
    const help = await helpOf(name);
    expect(help).toMatch(new RegExp(`^Usage: georefresh ${name} `));
    expect(help).toMatch(/Exit codes/);
    expect(help, "a default in commander's quoted form").not.toMatch(/\(default: "/);
    expect(help).not.toMatch(/\(default: \[\]\)/);
    const config = command.options.find((o) => o.long === "--config");
    if (config) expect(help).toMatch(/--config <path>\s+config file \(default: georefresh\.config\.json/);
    for (const line of help.split("\n").filter((l) => /^\s+(\S+=\S+\s+)*georefresh /.test(l)))
      expect(unquoted(line), `${name}: an example a shell would mangle: ${line.trim()}`).not.toMatch(/[?&*]/);
  });

  it("--dataset, wherever it is a flag, defaults to the config's only dataset", async () => {
    for (const name of names) {
      const option = (await commandOf(name)).options.find((o) => o.long === "--dataset");
      if (!option || name === "deliver" || name === "gc") continue; // those act on every dataset when it is left out
      expect(option.mandatory, `${name} --dataset`).toBe(false);
      expect(option.description, `${name} --dataset`).toMatch(/\(default: its only one\)/);
    }
  });

  it("changes: --json is the one way to ask for JSON (--format lists no json)", async () => {
    const help = await helpOf("changes");
    expect(help).toMatch(/--json/);
    expect(help).not.toMatch(/--format <format>\s+text \| json/);
    const both = await runCliHere([
      "changes",
      "x",
      "--region",
      "r",
      "--date",
      "2026-01-01",
      "--json",
      "--format",
      "geojson",
      "--store",
      "/nonexistent",
    ]);
    expect(both.code).toBe(2);
    expect(both.stdout).toMatch(/give --json or --format geojson, not both/);
  });
});
