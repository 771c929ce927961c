/** Wrong credentials on the real S3 server: exit 3, a message that says what to check, and never the secret. */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, inject, it } from "vitest";
import { runCliHere as runCli, writeFixtureTaskConfig } from "../helpers/cli.js";
import { s3Env } from "./harness/rgw.js";

describe("wrong credentials", () => {
  it("exit 3, 'refused the credentials', and the secret appears nowhere in the output", async () => {
    const dir = mkdtempSync(join(tmpdir(), "georefresh-creds-"));
    try {
      const config = writeFixtureTaskConfig(dir, `s3://${inject("s3")?.bucket}/creds`);
      const secret = "wrong-secret-that-must-never-be-printed";
      for (const args of [
        ["run", "--dataset", "bad", "--region", "r1", "--date", "2026-01-01"],
        ["doctor", "--store", `s3://${inject("s3")?.bucket}/creds`],
      ]) {
        const r = await runCli([...args, ...(args[0] === "run" ? ["--config", config] : [])], {
          ...s3Env(),
          AWS_SECRET_ACCESS_KEY: secret,
        });
        expect(r.code, args[0]).toBe(3);
        expect(`${r.stdout}${r.stderr}`).toMatch(
          /refused the credentials: SignatureDoesNotMatch \(HTTP 403\)\. Check AWS_ACCESS_KEY_ID/,
        );
        expect(`${r.stdout}${r.stderr}`).not.toContain(secret);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
