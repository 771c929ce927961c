import { readFileSync } from "node:fs";
import { Command } from "commander";
import { describe, expect, it } from "vitest";
import { COMMANDS } from "../../src/cli/commands.js";
import {
  EXIT_CODE,
  exitCodeOf,
  exitCodesHelp,
  exitCodesMarkdown,
  failureExit,
  worstExit,
  worstFailureExit,
} from "../../src/cli/exit-codes.js";
import { ConfigError } from "../../src/config/config.js";
import { UpstreamMissingError } from "../../src/inputs/dataset-input.js";
import { TamperedManifestError } from "../../src/manifest/codec.js";
import { UnavailableError, AccessDeniedError } from "../../src/store/errors.js";
import { runCli } from "../helpers/cli.js";

describe("one exit-code table", () => {
  it("README's table is the one generated from the table (npm run docs:exit-codes rewrites it)", () => {
    const readme = readFileSync(new URL("../../README.md", import.meta.url), "utf8");
    const block = /<!-- exit-codes:begin[^>]*-->\n([\s\S]*?)\n<!-- exit-codes:end -->/.exec(readme)?.[1];
    expect(block).toBe(exitCodesMarkdown());
  });

  it("`georefresh --help` and `run --help` end with the generated table", async () => {
    const help = await runCli(["--help"]);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain(exitCodesHelp());
    const run = await runCli(["run", "--help"]);
    expect(run.stdout).toContain(exitCodesHelp());
    // --config's default is said once, by commander (issue 27 item 8).
    expect(run.stdout.match(/georefresh\.config\.json/g)).toHaveLength(1);
    expect(run.stdout).toMatch(/--config <path>\s+config file \(default:\s+georefresh\.config\.json\)/);
    // Where datasets come from, on the first screen of help.
    expect(help.stdout).toMatch(
      /"source":\s+docs\/sources\.md\), or your own task module \("module": docs\/tasks\.md\)/,
    );
  });

  it("errors map by their code, through the table", () => {
    expect(exitCodeOf(new ConfigError("x"))).toBe(EXIT_CODE.Config);
    expect(exitCodeOf(new ConfigError("x"))).toBe(2);
    expect(exitCodeOf(new TamperedManifestError("x"))).toBe(1);
    expect(exitCodeOf(new UpstreamMissingError("x"))).toBe(75);
    expect(exitCodeOf(new UnavailableError("x"))).toBe(75);
    expect(exitCodeOf(new AccessDeniedError("x"))).toBe(3);
    expect(exitCodeOf(new Error("plain"))).toBe(1);
    expect(worstExit([0, 1, 4, 5])).toBe(5);
    expect(worstExit([1, 75, 3])).toBe(3);
    expect(worstExit([])).toBe(0);
  });

  it("the command table names exactly the commands the modules register", async () => {
    const program = new Command();
    const registers = new Set(await Promise.all(Object.values(COMMANDS).map((c) => c.register())));
    for (const register of registers) register(program);
    const registered = program.commands.map((c) => [c.name(), c.description()]);
    expect(registered.map(([n]) => n).sort()).toEqual(Object.keys(COMMANDS).sort());
    for (const [name, description] of registered)
      expect(description).toBe(COMMANDS[name as keyof typeof COMMANDS].description);
  });
});

describe("a failed partition's exit code comes from its error's code, through the one table", () => {
  it("the store's own when the store could not be used, the setup's for an input that is not there, else the outcome's", () => {
    expect(failureExit("Unavailable")).toBe(75);
    expect(failureExit("LockTimeout")).toBe(75);
    expect(failureExit("AccessDenied")).toBe(3);
    expect(failureExit("Misconfigured")).toBe(3);
    expect(failureExit("InputMissing")).toBe(2);
    expect(failureExit("InputMissing", { setup: false })).toBeUndefined();
    // A corrupt file a task reads, or one missing object, is the partition's failure (5), not the setup's or the store's.
    expect(failureExit("GeoParquetRead")).toBeUndefined();
    expect(failureExit("NotFound")).toBeUndefined();
    expect(failureExit(undefined)).toBeUndefined();
    // Any store failure that is for good outranks those that are for now; none at all leaves the outcomes to speak.
    expect(worstFailureExit([{ code: "Unavailable" }, { code: "AccessDenied" }, undefined])).toBe(3);
    expect(worstFailureExit([{ code: "Unavailable" }, { code: "Source" }])).toBe(75);
    expect(worstFailureExit([{ code: "Source" }, {}])).toBeUndefined();
  });
});
