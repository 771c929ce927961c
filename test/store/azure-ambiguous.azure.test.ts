/**
 * Azure writes whose answer is lost: the outcome must be decided by reading back, never by guessing. A loopback
 * proxy in front of the real Azurite loses answers on purpose (see faulty-proxy.ts).
 */
import { createHash, randomUUID } from "node:crypto";
import { afterEach, describe, expect, inject, it } from "vitest";
import { AzureStore } from "../../src/store/azure.js";
import { StoreError } from "../../src/store/errors.js";
import type { StreamBody } from "../../src/store/types.js";
import { startFaultyProxy } from "../helpers/faulty-proxy.js";
import type { Fault, FaultyProxy } from "../helpers/faulty-proxy.js";
import { azureEnv } from "../helpers/stores.js";

const enc = (s: string) => new TextEncoder().encode(s);
const dec = (b: Uint8Array) => new TextDecoder().decode(b);

describe("Azure conditional writes with a lost answer (Azurite)", () => {
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
  let proxy: FaultyProxy | undefined;
  afterEach(async () => proxy?.close());

  /** A store whose first conditional write (Put Blob or Put Block List) meets `fault`; everything else passes. */
  async function faulty(fault: Fault, requestTimeoutMs = 30_000): Promise<AzureStore> {
    let injected = false;
    proxy = await startFaultyProxy(az!.endpoint, (req) => {
      const conditional = req.method === "PUT" && (req.headers["if-match"] || req.headers["if-none-match"]);
      if (conditional && !injected) {
        injected = true;
        return fault;
      }
      return "pass";
    });
    return new AzureStore({ ...opts, endpoint: `${proxy.endpoint}${account}`, requestTimeoutMs });
  }

  it("a create that landed but answered 500 is recognised as ours", async () => {
    const store = await faulty("forward-then-500");
    const { version } = await store.put("amb/create-landed", enc("mine"), { mode: "create" });
    expect(dec((await direct.get("amb/create-landed")).body)).toBe("mine");
    expect((await direct.head("amb/create-landed")).version).toBe(version);
    expect(proxy?.seen.filter((r) => r.startsWith("PUT"))).toHaveLength(1);
  });

  it("an update that never reached the server is sent again and lands once", async () => {
    const v1 = (await direct.put("amb/update-retry", enc("v1"), { mode: "create" })).version;
    const store = await faulty("500-without-forward");
    await store.put("amb/update-retry", enc("v2"), { mode: { update: v1 } });
    expect(dec((await direct.get("amb/update-retry")).body)).toBe("v2");
    expect(proxy?.seen.filter((r) => r.startsWith("PUT"))).toHaveLength(2);
  });

  it("an update that timed out after landing is recognised as ours", async () => {
    const v1 = (await direct.put("amb/update-timeout", enc("v1"), { mode: "create" })).version;
    const store = await faulty("forward-then-hang", 1_000);
    await store.put("amb/update-timeout", enc("v2 by me"), { mode: { update: v1 } });
    expect(dec((await direct.get("amb/update-timeout")).body)).toBe("v2 by me");
  });

  it("a block list commit that landed but answered 500 is recognised as ours", async () => {
    const bytes = Uint8Array.from({ length: 200 * 1024 }, (_, i) => (i * 13) & 0xff);
    const body: StreamBody = {
      size: bytes.byteLength,
      sha256: createHash("sha256").update(bytes).digest("hex"),
      async *chunks() {
        yield bytes;
      },
    };
    const store = await faulty("forward-then-500");
    await store.put("amb/blocks", body, { mode: "create", partBytes: 64 * 1024 });
    expect(Buffer.compare((await direct.get("amb/blocks")).body, bytes)).toBe(0);
    expect(proxy?.seen.filter((r) => r.includes("comp=block&"))).toHaveLength(4);
    expect(proxy?.seen.filter((r) => r.includes("comp=blocklist"))).toHaveLength(1);
  });

  it("a create with a lost answer where another writer holds the key reports AlreadyExists", async () => {
    await direct.put("amb/taken", enc("theirs"), { mode: "create" });
    const store = await faulty("500-without-forward");
    const error = await store.put("amb/taken", enc("mine"), { mode: "create" }).catch((e: unknown) => e);
    expect((error as StoreError).code).toBe("AlreadyExists");
    expect(dec((await direct.get("amb/taken")).body)).toBe("theirs");
  });

  it("an update with a lost answer after another writer moved on reports PreconditionFailed", async () => {
    const v1 = (await direct.put("amb/moved", enc("v1"), { mode: "create" })).version;
    await direct.put("amb/moved", enc("v2 by them"), { mode: { update: v1 } });
    const store = await faulty("500-without-forward");
    const error = await store.put("amb/moved", enc("v2 by me"), { mode: { update: v1 } }).catch((e: unknown) => e);
    expect((error as StoreError).code).toBe("PreconditionFailed");
    expect(dec((await direct.get("amb/moved")).body)).toBe("v2 by them");
  });

  it("retries idempotent calls through a 5xx, and only those", async () => {
    await direct.put("amb/idem", enc("x"));
    let failures = 0;
    proxy = await startFaultyProxy(az.endpoint, (req) => {
      if ((req.method === "GET" || req.method === "HEAD") && failures < 2) {
        failures++;
        return "500-without-forward";
      }
      return "pass";
    });
    const store = new AzureStore({ ...opts, endpoint: `${proxy.endpoint}${account}` });
    expect(dec((await store.get("amb/idem")).body)).toBe("x");
    expect((await store.head("amb/idem")).size).toBe(1);
    expect(proxy.seen.filter((r) => r.startsWith("GET"))).toHaveLength(3);
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
