/**
 * The capability probe: passes on stores that honour conditional writes (fs, Ceph RGW) and fails loudly on a
 * real S3 server that ignores them (s3rver — the one place such a server belongs in this project).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import S3rver from "s3rver";
import { S3Store } from "../../src/store/s3.js";
import { probeStore } from "../../src/store/probe.js";
import { runCliHere as runCli } from "../helpers/cli.js";
import { s3Env } from "../store/harness/rgw.js";

describe("doctor / probeStore", () => {
  let server: S3rver;
  let ignoringEndpoint: string;
  let dir: string;
  const ignoringEnv = () => ({
    AWS_ENDPOINT_URL_S3: ignoringEndpoint,
    AWS_ACCESS_KEY_ID: "S3RVER",
    AWS_SECRET_ACCESS_KEY: "S3RVER",
    AWS_REGION: "us-east-1",
  });

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "georefresh-s3rver-"));
    server = new S3rver({
      address: "127.0.0.1",
      port: 0,
      silent: true,
      directory: dir,
      configureBuckets: [{ name: "ignoring", configs: [] }],
    });
    const { port } = (await server.run()) as { port: number };
    ignoringEndpoint = `http://127.0.0.1:${port}`;
  });
  afterAll(async () => {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("rejects a store that accepts conditional headers and ignores them", async () => {
    const store = new S3Store({
      bucket: "ignoring",
      endpoint: ignoringEndpoint,
      region: "us-east-1",
      credentials: { accessKeyId: "S3RVER", secretAccessKey: "S3RVER" },
    });
    const report = await probeStore(store);
    await store.close();
    expect(report.ok).toBe(false);
    const failed = report.checks.find((c) => !c.ok);
    expect(failed?.name).toBe("create when present is refused");
    expect(failed?.detail).toMatch(/ignores conditional writes/);
    // The scratch key is cleaned up even after the failure.
    expect(report.checks.at(-1)).toMatchObject({ name: "clean up", ok: true });
  });

  it("CLI: doctor fails with a clear message and exit 1 on the condition-ignoring server", async () => {
    const r = await runCli(["doctor", "--store", "s3://ignoring/x"], ignoringEnv());
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/^FAIL create when present is refused: .*ignores conditional writes/m);
    expect(r.stderr).toMatch(/cannot be used for promotion/);
  });

  it("CLI: doctor passes on Ceph RGW, as lines and as JSON", async () => {
    const s3 = inject("s3");
    const lines = await runCli(["doctor", "--store", `s3://${s3?.bucket}/doctor`], s3Env());
    expect(lines.code).toBe(0);
    expect(lines.stdout.trim().split("\n")).toHaveLength(6);
    expect(lines.stdout).not.toMatch(/FAIL/);
    const json = await runCli(["doctor", "--store", `s3://${s3?.bucket}/doctor`, "--json"], s3Env());
    expect(json.code).toBe(0);
    const report = JSON.parse(json.stdout) as { ok: boolean; checks: { ok: boolean }[] };
    expect(report.ok).toBe(true);
    expect(report.checks.every((c) => c.ok)).toBe(true);
  });

  it("CLI: doctor passes on the filesystem and leaves no scratch object behind", async () => {
    const root = mkdtempSync(join(tmpdir(), "georefresh-doctor-"));
    try {
      const r = await runCli(["doctor", "--store", root]);
      expect(r.code).toBe(0);
      expect(r.stdout).toMatch(/^ok +update with a stale version is refused/m);
      const { FsStore } = await import("../../src/store/fs.js");
      const left: string[] = [];
      for await (const e of new FsStore(root).list("")) left.push(e.key);
      expect(left).toEqual([]);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it("CLI: an unreachable store and a missing bucket exit 3 with what to do", async () => {
    const unreachable = await runCli(["doctor", "--store", "s3://b/x"], {
      ...s3Env(),
      AWS_ENDPOINT_URL_S3: "http://127.0.0.1:9",
    });
    expect(unreachable.code).toBe(3);
    expect(unreachable.stdout).toMatch(/ECONNREFUSED; is the server running/);
    const noBucket = await runCli(["doctor", "--store", "s3://no-such-bucket-georefresh/x"], s3Env());
    expect(noBucket.code).toBe(3);
    expect(noBucket.stdout).toMatch(/bucket 'no-such-bucket-georefresh' does not exist/);
  });

  it("CLI: usage errors exit 2", async () => {
    const r = await runCli(["doctor"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/required option '--store <url>'/);
    const scheme = await runCli(["doctor", "--store", "ftp://x/y"]);
    expect(scheme.code).toBe(3);
    expect(scheme.stderr).toMatch(/unsupported store URL scheme 'ftp:\/\/'/);
  });
});
