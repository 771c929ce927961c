/**
 * README writes `scripts/postgres.sh start` (and azurite, s3-server, slurm): each script with a shebang is
 * executable in git's index, so a fresh clone runs it in that form (mode 100644 was "Permission denied"). Their
 * `env` is run here exactly as README writes it, without `bash` in front. daemons.sh is a library they source.
 */
import { execFileSync } from "node:child_process";
import { accessSync, constants, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const root = join(import.meta.dirname, "..");
const scripts = readdirSync(join(root, "scripts")).filter((f) => f.endsWith(".sh"));

describe("scripts run as README writes them", () => {
  it("every script with a shebang is 100755 in git and executable here; the sourced library is not", () => {
    const modes = new Map(
      execFileSync("git", ["ls-files", "-s", "scripts"], { cwd: root, encoding: "utf8" })
        .trim()
        .split("\n")
        .map((line) => {
          const [mode, , , path] = line.split(/\s+/);
          return [String(path), String(mode)] as const;
        }),
    );
    const runnable = scripts.filter((f) => readFileSync(join(root, "scripts", f), "utf8").startsWith("#!"));
    expect(runnable).toEqual(expect.arrayContaining(["azurite.sh", "postgres.sh", "s3-server.sh", "slurm.sh"]));
    for (const f of runnable) {
      expect(modes.get(`scripts/${f}`), f).toBe("100755");
      expect(() => accessSync(join(root, "scripts", f), constants.X_OK), f).not.toThrow();
    }
    expect(scripts.filter((f) => !runnable.includes(f))).toEqual(["daemons.sh"]);
  });

  it.each(["azurite", "postgres", "s3-server", "slurm"])("scripts/%s.sh env runs directly", (name) => {
    const out = execFileSync(`scripts/${name}.sh`, ["env"], { cwd: root, encoding: "utf8" });
    expect(out).toMatch(/^export [A-Z_]+=/m);
  });
});
