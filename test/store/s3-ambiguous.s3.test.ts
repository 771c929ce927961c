/**
 * S3 writes whose answer is lost: the outcome must be decided by reading back, never by guessing. A loopback
 * proxy in front of the real RGW loses answers on purpose (see faulty-proxy.ts).
 */
import { randomUUID } from "node:crypto";
import { afterEach, describe, expect, inject, it } from "vitest";
import { StoreError } from "../../src/store/errors.js";
import { S3Store } from "../../src/store/s3.js";
import { startFaultyProxy } from "../helpers/faulty-proxy.js";
import type { Fault, FaultyProxy } from "../helpers/faulty-proxy.js";

const enc = (s: string) => new TextEncoder().encode(s);
const dec = (b: Uint8Array) => new TextDecoder().decode(b);

describe("S3 conditional PUT with a lost answer", () => {
  const s3 = inject("s3");
  if (!s3) throw new Error("S3 test server not configured");
  const prefix = `t/${randomUUID()}`;
  const opts = {
    bucket: s3.bucket,
    prefix,
    region: s3.region,
    forcePathStyle: true,
    credentials: { accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey },
    retry: { attempts: 4, baseMs: 10, capMs: 50 },
  };
  const direct = new S3Store({ ...opts, endpoint: s3.endpoint });
  let proxy: FaultyProxy | undefined;
  afterEach(async () => proxy?.close());

  /** A store whose first conditional PUT meets `fault`; everything else passes. */
  async function faulty(fault: Fault, requestTimeoutMs = 30_000): Promise<S3Store> {
    let injected = false;
    proxy = await startFaultyProxy(s3!.endpoint, (req) => {
      const conditional = req.method === "PUT" && (req.headers["if-match"] || req.headers["if-none-match"]);
      if (conditional && !injected) {
        injected = true;
        return fault;
      }
      return "pass";
    });
    return new S3Store({ ...opts, endpoint: proxy.endpoint, requestTimeoutMs });
  }

  it("create that landed but answered 500 is recognised as ours", async () => {
    const store = await faulty("forward-then-500");
    const { version } = await store.put("amb/create-landed", enc("mine"), { mode: "create" });
    expect(dec((await direct.get("amb/create-landed")).body)).toBe("mine");
    expect((await direct.head("amb/create-landed")).version).toBe(version);
    expect(proxy?.seen.filter((r) => r.startsWith("PUT"))).toHaveLength(1);
  });

  it("update that never reached the server is sent again and lands once", async () => {
    const v1 = (await direct.put("amb/update-retry", enc("v1"), { mode: "create" })).version;
    const store = await faulty("500-without-forward");
    await store.put("amb/update-retry", enc("v2"), { mode: { update: v1 } });
    expect(dec((await direct.get("amb/update-retry")).body)).toBe("v2");
    expect(proxy?.seen.filter((r) => r.startsWith("PUT"))).toHaveLength(2);
  });

  it("update that timed out after landing is recognised as ours", async () => {
    const v1 = (await direct.put("amb/update-timeout", enc("v1"), { mode: "create" })).version;
    const store = await faulty("forward-then-hang", 1_000);
    await store.put("amb/update-timeout", enc("v2 by me"), { mode: { update: v1 } });
    expect(dec((await direct.get("amb/update-timeout")).body)).toBe("v2 by me");
  });

  it("create with a lost answer where another writer holds the key reports AlreadyExists", async () => {
    await direct.put("amb/taken", enc("theirs"), { mode: "create" });
    const store = await faulty("500-without-forward");
    const error = await store.put("amb/taken", enc("mine"), { mode: "create" }).catch((e: unknown) => e);
    expect((error as StoreError).code).toBe("AlreadyExists");
    expect(dec((await direct.get("amb/taken")).body)).toBe("theirs");
  });

  it("update with a lost answer after another writer moved on reports PreconditionFailed", async () => {
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
    proxy = await startFaultyProxy(s3.endpoint, (req) => {
      const idempotent =
        req.method === "GET" || req.method === "HEAD" || (req.method === "PUT" && !req.headers["if-none-match"]);
      if (idempotent && failures < 2) {
        failures++;
        return "500-without-forward";
      }
      return "pass";
    });
    const store = new S3Store({ ...opts, endpoint: proxy.endpoint });
    expect(dec((await store.get("amb/idem")).body)).toBe("x");
    expect((await store.head("amb/idem")).size).toBe(1);
    expect(proxy.seen.filter((r) => r.startsWith("GET"))).toHaveLength(3);
  });

  it("never puts the secret key in an error message", async () => {
    const wrong = new S3Store({
      ...opts,
      endpoint: s3.endpoint,
      credentials: { accessKeyId: s3.accessKeyId, secretAccessKey: "s3cr3t-never-print-me" },
    });
    for (const op of [
      () => wrong.head("x"),
      () => wrong.put("x", enc("x"), { mode: "create" }),
      () => wrong.get("x"),
    ]) {
      const error = (await op().catch((e: unknown) => e)) as StoreError;
      expect(error.code).toBe("AccessDenied");
      expect(error.message).toMatch(/refused the credentials/);
      expect(`${error.message} ${error.stack}`).not.toContain("s3cr3t-never-print-me");
    }
  });
});
