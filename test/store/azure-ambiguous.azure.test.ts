/** Azure writes whose answer is lost, on the real Azurite behind a proxy that loses answers (lost-answers.ts). */
import { createHash, randomUUID } from "node:crypto";
import { describe, expect, inject, it } from "vitest";
import { AzureStore } from "../../src/store/azure.js";
import { StoreError } from "../../src/store/errors.js";
import type { StreamBody } from "../../src/store/types.js";
import { compareKeys } from "../../src/store/keys.js";
import { startFaultyProxy } from "../helpers/faulty-proxy.js";
import { azureEnv } from "./harness/azurite.js";
import { describeLostAnswers } from "./lost-answers.js";

const enc = (s: string) => new TextEncoder().encode(s);

const az = inject("azure");
if (!az) throw new Error("Azurite test server not configured");
const opts = {
  container: az.container,
  prefix: `t/${randomUUID()}`,
  env: azureEnv(),
  retry: { attempts: 4, baseMs: 10, capMs: 50 },
};
const direct = new AzureStore(opts);
const account = new URL(az.endpoint).pathname; // "/devstoreaccount1": Azurite names the account in the path

describeLostAnswers(
  "Azure (Azurite)",
  () => ({
    upstream: az.endpoint,
    direct,
    through: (origin, requestTimeoutMs) =>
      new AzureStore({ ...opts, endpoint: `${origin}${account}`, requestTimeoutMs }),
  }),
  (faulty) => {
    it("a block list commit that landed but answered 500 is recognised as ours", async () => {
      const bytes = Uint8Array.from({ length: 200 * 1024 }, (_, i) => (i * 13) & 0xff);
      const body: StreamBody = {
        size: bytes.byteLength,
        sha256: createHash("sha256").update(bytes).digest("hex"),
        async *chunks() {
          yield bytes;
        },
      };
      const { store, proxy } = await faulty("forward-then-500");
      await store.put("amb/blocks", body, { mode: "create", partBytes: 64 * 1024 });
      expect(Buffer.compare((await direct.get("amb/blocks")).body, bytes)).toBe(0);
      expect(proxy.seen.filter((r) => r.includes("comp=block&"))).toHaveLength(4);
      expect(proxy.seen.filter((r) => r.includes("comp=blocklist"))).toHaveLength(1);
    });
  },
);

describe("Azure failures that are not lost answers", () => {
  it("a listing resumes at its page when a page fails, in byte order across pages, without losing or repeating a key", async () => {
    const keys = Array.from({ length: 23 }, (_, i) => `pages/k${String(i).padStart(2, "0")}`);
    keys.push("pages/k05\u{1F600}", "pages/k05\uFFFD", "pages/k05\uE000");
    for (const k of keys) await direct.put(k, enc(k));
    let failed = 0;
    const proxy = await startFaultyProxy(az.endpoint, (req) => {
      if (req.url?.includes("comp=list") && req.url.includes("marker=") && failed < 2) {
        failed++;
        return "500-without-forward";
      }
      return "pass";
    });
    try {
      const store = new AzureStore({ ...opts, endpoint: `${proxy.endpoint}${account}`, listPageSize: 4 });
      const listed: string[] = [];
      for await (const e of store.list("pages/")) listed.push(e.key);
      expect(listed).toEqual([...keys].sort(compareKeys));
      expect(failed).toBe(2);
      expect(proxy.seen.filter((r) => r.includes("comp=list")).length).toBe(Math.ceil(keys.length / 4) + 2);
      const after: string[] = [];
      for await (const e of store.list("pages/", { startAfter: "pages/k05\uFFFD" })) after.push(e.key);
      expect(after).toEqual([...keys].sort(compareKeys).filter((k) => compareKeys(k, "pages/k05\uFFFD") > 0));
    } finally {
      await proxy.close();
    }
  });

  it("an unreachable endpoint is Unavailable, a missing container Misconfigured, a wrong key AccessDenied without the key", async () => {
    const down = new AzureStore({ ...opts, endpoint: `http://127.0.0.1:9${account}` });
    const unreachable = (await down.head("x").catch((e: unknown) => e)) as StoreError;
    expect([unreachable.code, unreachable.message]).toEqual(["Unavailable", expect.stringMatching(/kept failing/)]);
    const none = new AzureStore({ ...opts, container: "no-such-container" });
    const missing = (await none.put("x", enc("x"), { mode: "create" }).catch((e: unknown) => e)) as StoreError;
    expect(missing.code).toBe("Misconfigured");
    expect(missing.message).toMatch(/container 'no-such-container' does not exist at .*create it/);
    const secret = Buffer.from("s3cr3t-never-print-me").toString("base64");
    const wrong = new AzureStore({ ...opts, env: { ...opts.env, AZURE_STORAGE_KEY: secret } });
    for (const op of [
      () => wrong.head("x"),
      () => wrong.put("x", enc("x"), { mode: "create" }),
      () => wrong.get("x"),
    ]) {
      const error = (await op().catch((e: unknown) => e)) as StoreError;
      expect(error.code).toBe("AccessDenied");
      expect(error.message).toMatch(/Azure refused the credentials/);
      expect(`${error.message} ${error.stack}`).not.toContain(secret);
    }
  });
});
