/** doctor and a run against the real Azurite, through the CLI: passes, and fails with what to do (exit 3). */
import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, inject, it } from "vitest";
import {
  AccountSASPermissions,
  AccountSASResourceTypes,
  AccountSASServices,
  generateAccountSASQueryParameters,
  StorageSharedKeyCredential,
} from "@azure/storage-blob";
import { AzureStore } from "../../src/store/azure.js";
import { runCliHere as runCli, writeFixtureTaskConfig } from "../helpers/cli.js";
import { azureEnv } from "../store/harness/azurite.js";

describe("doctor and run on Azurite", () => {
  const container = inject("azure")?.container as string;

  it("doctor passes, as lines and as JSON, under az:// and azure://, and leaves no scratch blob", async () => {
    const lines = await runCli(["doctor", "--store", `az://${container}/doctor`], azureEnv());
    expect(lines.code, lines.stderr).toBe(0);
    expect(lines.stdout.trim().split("\n")).toHaveLength(6);
    expect(lines.stdout).toMatch(/^ok +update with a stale version is refused/m);
    expect(lines.stdout).not.toMatch(/FAIL/);
    const json = await runCli(["doctor", "--store", `azure://${container}/doctor`, "--json"], azureEnv());
    const report = JSON.parse(json.stdout) as { ok: boolean; store: string; checks: { ok: boolean }[] };
    expect([json.code, report.ok, report.store]).toEqual([0, true, `az://${container}/doctor`]);
    const left: string[] = [];
    for await (const e of new AzureStore({ container, prefix: "doctor", env: azureEnv() }).list("")) left.push(e.key);
    expect(left).toEqual([]);
  });

  it("doctor passes with a connection string alone, and with an account SAS token", async () => {
    const az = inject("azure");
    if (!az) throw new Error("Azurite test server not configured");
    const connection = `DefaultEndpointsProtocol=http;AccountName=${az.account};AccountKey=${az.key};BlobEndpoint=${az.endpoint};`;
    const byString = await runCli(["doctor", "--store", `az://${container}/doctor-cs`], {
      AZURE_STORAGE_CONNECTION_STRING: connection,
      AZURE_STORAGE_ACCOUNT: "",
      AZURE_STORAGE_KEY: "",
      AZURE_STORAGE_BLOB_ENDPOINT: "",
    });
    expect(byString.code, byString.stdout + byString.stderr).toBe(0);
    expect(`${byString.stdout}${byString.stderr}`).not.toContain(az.key);
    const sas = generateAccountSASQueryParameters(
      {
        expiresOn: new Date(Date.now() + 3_600_000),
        permissions: AccountSASPermissions.parse("rwdlc"),
        services: AccountSASServices.parse("b").toString(),
        resourceTypes: AccountSASResourceTypes.parse("sco").toString(),
      },
      new StorageSharedKeyCredential(az.account, az.key),
    ).toString();
    const bySas = await runCli(["doctor", "--store", `az://${container}/doctor-sas`, "--json"], {
      AZURE_STORAGE_ACCOUNT: az.account,
      AZURE_STORAGE_KEY: "",
      AZURE_STORAGE_SAS_TOKEN: sas,
      AZURE_STORAGE_BLOB_ENDPOINT: az.endpoint,
    });
    expect(bySas.code, bySas.stdout + bySas.stderr).toBe(0);
    expect(bySas.stdout).not.toContain(new URLSearchParams(sas).get("sig") as string);
    // A SAS that may not write is refused as credentials, with what to check.
    const readOnly = generateAccountSASQueryParameters(
      {
        expiresOn: new Date(Date.now() + 3_600_000),
        permissions: AccountSASPermissions.parse("rl"),
        services: AccountSASServices.parse("b").toString(),
        resourceTypes: AccountSASResourceTypes.parse("sco").toString(),
      },
      new StorageSharedKeyCredential(az.account, az.key),
    ).toString();
    const refused = await runCli(["doctor", "--store", `az://${container}/doctor-sas`], {
      AZURE_STORAGE_ACCOUNT: az.account,
      AZURE_STORAGE_KEY: "",
      AZURE_STORAGE_SAS_TOKEN: readOnly,
      AZURE_STORAGE_BLOB_ENDPOINT: az.endpoint,
    });
    expect(refused.code).toBe(3);
    expect(refused.stdout).toMatch(/Azure refused the credentials: \w+ \(HTTP 403\)/);
  });

  it("a wrong key, a missing container and an unreachable endpoint exit 3 with what to do, never the key", async () => {
    const secret = Buffer.from("wrong-key-that-must-never-be-printed").toString("base64");
    const dir = mkdtempSync(join(tmpdir(), "georefresh-az-creds-"));
    try {
      const config = writeFixtureTaskConfig(dir, `az://${container}/creds`);
      for (const args of [
        ["run", "--dataset", "bad", "--region", "r1", "--date", "2026-01-01", "--config", config],
        ["doctor", "--store", `az://${container}/creds`],
      ]) {
        const r = await runCli(args, { ...azureEnv(), AZURE_STORAGE_KEY: secret });
        expect(r.code, args[0]).toBe(3);
        expect(`${r.stdout}${r.stderr}`).toMatch(/Azure refused the credentials: .*\(HTTP 403\)\. Check AZURE_STORAGE/);
        expect(`${r.stdout}${r.stderr}`).not.toContain(secret);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    const none = await runCli(["doctor", "--store", "az://no-such-container-georefresh/x"], azureEnv());
    expect(none.code).toBe(3);
    expect(none.stdout).toMatch(/container 'no-such-container-georefresh' does not exist at http:\/\/127\.0\.0\.1/);
    const down = await runCli(["doctor", "--store", `az://${container}/x`], {
      ...azureEnv(),
      AZURE_STORAGE_BLOB_ENDPOINT: "http://127.0.0.1:9/devstoreaccount1",
    });
    expect(down.code).toBe(3);
    expect(down.stdout).toMatch(/Azure endpoint http:\/\/127\.0\.0\.1:9\/devstoreaccount1 kept failing: ECONNREFUSED/);
  }, 60_000);

  it("az:// inputs are identified by their ETag and fail when replaced mid-run", async () => {
    const { resolveInput } = await import("../../src/inputs/resolve.js");
    const store = new AzureStore({ container, prefix: `inputs-${randomUUID()}`, env: azureEnv() });
    Object.assign(process.env, azureEnv());
    const { version } = await store.put("points.json", new TextEncoder().encode("[[1,2,3]]"));
    const uri = `az://${container}/${store.prefix}/points.json`;
    const input = await resolveInput(uri);
    expect(input.identity).toBe(`etag:${version}`);
    expect(new TextDecoder().decode(await input.read())).toBe("[[1,2,3]]");
    // Read once into the run's copy; replaced between identification and the first read, the read fails.
    const later = await resolveInput(uri);
    await store.put("points.json", new TextEncoder().encode("[[4,5,6]]"));
    expect(new TextDecoder().decode(await input.read())).toBe("[[1,2,3]]");
    await expect(later.read()).rejects.toThrow(new RegExp(`input ${uri} changed during the run \\(etag:`));
    await store.delete("points.json");
  });
});
