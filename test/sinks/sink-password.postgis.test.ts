/**
 * Issue 40 item 7: a PostgreSQL that asks for a password the user did not give says so (not node-pg's SASL text),
 * a wrong one is said to be refused, and neither ever prints the password. scripts/postgres.sh makes the role
 * `georefresh_pw`, which must give its password over SCRAM (every other role keeps loopback trust).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { runCliHere } from "../helpers/cli.js";
import { parcelsProject } from "../helpers/parcels-project.js";
import { parcels } from "../helpers/parcels-task.js";

const ROLE = "georefresh_pw";
const SECRET = "never-printed-7f3a";

describe("sink to a PostgreSQL that wants a password", () => {
  let dir: string;
  let config: string;
  let at: URL;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "georefresh-sink-password-"));
    const project = await parcelsProject(dir);
    config = project.config;
    await project.promote("weld", "2026-03-01", parcels(50));
    at = new URL(inject("postgres") as string);
    at.username = ROLE;
  }, 60_000);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const sink = (to: string, env: Record<string, string> = {}) =>
    runCliHere(["sink", "parcels", "--config", config, "--to", `${to}?schema=pw_${process.pid}`], {
      PGPASSWORD: "",
      PGPASSFILE: join(dir, "no-pgpass"),
      ...env,
    });

  it("none given: says the server asks for one and where to put it (exit 3)", async () => {
    const r = await sink(at.toString());
    expect(r.code, r.stderr).toBe(3);
    expect(r.stderr).toMatch(
      /cannot connect to postgresql:\/\/\*\*\*@.*: the server asks for a password and none was given: set PGPASSWORD, or put it in ~\/\.pgpass/,
    );
    expect(r.stderr).not.toMatch(/SASL|must be a string/);
  });

  it("a wrong one: refused, and never printed (URL or PGPASSWORD); the right one connects", async () => {
    const wrong = new URL(at);
    wrong.password = "wrong-pw-91c2";
    for (const r of [await sink(wrong.toString()), await sink(at.toString(), { PGPASSWORD: "wrong-pw-91c2" })]) {
      expect(r.code, r.stderr).toBe(3);
      expect(r.stderr).toMatch(/the server refused the password for this user: check PGPASSWORD/);
      expect(r.stdout + r.stderr).not.toContain("wrong-pw-91c2");
    }
    const right = await sink(at.toString(), { PGPASSWORD: SECRET });
    expect(right.code, right.stderr).toBe(0);
    expect(right.stdout).toMatch(/1 partitions? applied/);
    expect(right.stdout + right.stderr).not.toContain(SECRET);
  });
});
