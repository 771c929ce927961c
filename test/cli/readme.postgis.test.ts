/**
 * Issue 40 item 3: every command the README shows runs, in order, from a fresh directory holding only the
 * project's config and versions file, the way a new user pastes them: through bash, with `georefresh` the CLI that
 * the README's own `npm install -g --ignore-scripts .` put on PATH (into a folder of this test's, by
 * npm_config_prefix, run in this checkout as a clone's user runs it). The DuckDB line runs on DuckDB's engine from its Python package (the DuckDB CLI is one
 * binary from duckdb.org that no registry here carries); the Python line runs as written. The PostgreSQL sink
 * goes to the test server instead of the README's example host. Lines that are synopses, not commands, are listed
 * below: a new command in the README must either run here or be added to that list on purpose.
 */
import { execFile } from "node:child_process";
import { copyFileSync, mkdtempSync, readFileSync, readlinkSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, describe, expect, inject, it } from "vitest";
import { geopandasPython } from "../helpers/geopandas.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const README_HOST = "postgresql://me@localhost:5432/gis";

/** Lines of the README's shell blocks that are not commands to run, and why. */
const NOT_RUN: Record<string, string> = {
  "npm test": "this suite is what it runs",
  "georefresh finalize --dataset D (--from A | --trailing N) --to B [--regions R,…] [--store URL] [--json]":
    "a synopsis (its placeholders are the reader's to fill)",
};

/** Every command of the README's sh and plain blocks, in order: `$ ` prompts and comments removed. */
function readmeCommands(): string[] {
  const text = readFileSync(join(ROOT, "README.md"), "utf8");
  const out: string[] = [];
  for (const m of text.matchAll(/```(\w*)\n([\s\S]*?)```/g)) {
    if (m[1] !== "sh" && m[1] !== "") continue;
    for (const raw of (m[2] as string).split("\n")) {
      const line = raw.replace(/^\$ /, "").trim();
      if (!line || line.startsWith("#")) continue;
      if (!/^(georefresh|npm|duckdb|python3|jid=|sbatch)/.test(line)) continue; // output lines
      out.push(line);
    }
  }
  return out;
}

const dir = mkdtempSync(join(tmpdir(), "georefresh-readme-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("the README's commands", () => {
  it("each runs as written, in order, from a fresh directory", async () => {
    copyFileSync(join(ROOT, "georefresh.config.json"), join(dir, "georefresh.config.json"));
    copyFileSync(join(ROOT, "versions.json"), join(dir, "versions.json"));
    const python = geopandasPython();
    const prefix = join(dir, "npm-global");
    const prelude = [
      `export PATH=${JSON.stringify(join(prefix, "bin"))}:"$PATH"`,
      `duckdb() { [ "$1" = -c ] || return 2; ${JSON.stringify(python)} -c 'import duckdb, sys; duckdb.sql(sys.argv[1]).show()' "$2"; }`,
      `python3() { ${JSON.stringify(python)} "$@"; }`,
      "set -o pipefail",
    ].join("\n");
    const commands = readmeCommands();
    const skipped = commands.filter((c) => Object.hasOwn(NOT_RUN, c));
    expect(skipped.sort()).toEqual(Object.keys(NOT_RUN).sort());
    // Slurm's lines are run by the Slurm suite (test/engines), against the cluster; they are not a new user's first hour.
    const run = commands.filter((c) => !Object.hasOwn(NOT_RUN, c) && !/^(jid=|sbatch)/.test(c));
    expect(run.length).toBeGreaterThan(10);
    const seen: string[] = [];
    for (const command of run) {
      // `npm ci` is done: this suite runs after it. The install runs as written, in the clone, into our prefix.
      const parts = command.split(" && ").filter((part) => part !== "npm ci");
      if (parts[0]?.startsWith("npm install -g ")) {
        const install = (parts.shift() as string).split(" ").slice(1);
        await promisify(execFile)("npm", install, {
          cwd: ROOT,
          env: { ...process.env, npm_config_prefix: prefix, npm_config_audit: "false", npm_config_fund: "false" },
        });
        expect(readlinkSync(join(prefix, "bin", "georefresh"))).toMatch(/dist\/cli\/main\.js$/);
      }
      const line = parts.join(" && ").replaceAll(README_HOST, (inject("postgres") as string).replace(/\?.*$/, ""));
      const r = await promisify(execFile)("bash", ["-c", `${prelude}\n${line}`], {
        cwd: dir,
        maxBuffer: 256 * 2 ** 20,
        env: { ...process.env, CI: "" },
      }).then(
        (ok) => ({ code: 0, ...ok }),
        (error: { code: number; stdout: string; stderr: string }) => error,
      );
      expect(r.code, `${command}\n${r.stderr}`).toBe(0);
      expect(r.stderr, command).not.toMatch(/\n\s+at .*\(.*:\d+:\d+\)/); // no stack trace
      seen.push(`${command.slice(0, 60)} → ${r.stdout.split("\n")[0]}`);
      if (command.startsWith("duckdb") || command.startsWith("python3"))
        expect(r.stdout, command).toMatch(/│\s+state\s+│[\s\S]*56 rows/);
      if (command.includes("county-points")) expect(r.stdout).toMatch(/county-points: 168 partitions: 168 promoted/);
      if (command.includes("read us-counties --region RI"))
        expect((JSON.parse(r.stdout) as { features: unknown[] }).features).toHaveLength(5);
      if (command.includes("--to us-counties.gpkg")) {
        expect(r.stdout).toMatch(/sink us-counties → .*us-counties\.gpkg/);
        // The README quotes this line: its snapshot id and figures are what the command prints.
        const quoted = /The first prints `sink us-counties → …\/us-counties\.gpkg ([^…]*)…`/.exec(
          readFileSync(join(ROOT, "README.md"), "utf8").replace(/\n/g, " "),
        )?.[1];
        expect(quoted, "README quotes the GeoPackage sink's outcome line").toBeDefined();
        expect(r.stdout.replace(/\s+/g, " ")).toContain((quoted as string).replace(/\s+/g, " "));
      }
    }
    expect(seen.length).toBe(run.length);
  }, 600_000);
});
