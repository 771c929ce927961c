/**
 * Conditional writes whose answer is lost, for any backend that talks HTTP: the outcome must be decided by reading
 * back, never by guessing. A loopback proxy in front of the real server loses answers on purpose (faulty-proxy.ts).
 */
import { afterEach, describe, expect, it } from "vitest";
import { StoreError } from "../../src/store/errors.js";
import type { ObjectStore } from "../../src/store/types.js";
import { startFaultyProxy } from "../helpers/faulty-proxy.js";
import type { Fault, FaultyProxy } from "../helpers/faulty-proxy.js";

const enc = (s: string) => new TextEncoder().encode(s);
const dec = (b: Uint8Array) => new TextDecoder().decode(b);

export interface LostAnswerTarget {
  /** The server's endpoint, which the proxy forwards to. */
  upstream: string;
  /** A store on the server itself, to see what landed. */
  direct: ObjectStore;
  /** The same store reached through a proxy origin (http://127.0.0.1:port). */
  through(proxyOrigin: string, requestTimeoutMs: number): ObjectStore;
}

/** The suite; `extra` adds backend-specific cases that get the same `faulty` helper. */
export function describeLostAnswers(
  name: string,
  target: () => LostAnswerTarget,
  extra?: (faulty: (fault: Fault) => Promise<{ store: ObjectStore; proxy: FaultyProxy }>) => void,
): void {
  describe(`${name}: conditional writes with a lost answer`, () => {
    const { upstream, direct, through } = target();
    let proxy: FaultyProxy | undefined;
    afterEach(async () => proxy?.close());

    /** A store whose first conditional PUT meets `fault`; everything else passes. */
    async function faulty(fault: Fault, requestTimeoutMs = 30_000) {
      let injected = false;
      proxy = await startFaultyProxy(upstream, (req) => {
        const conditional = req.method === "PUT" && (req.headers["if-match"] || req.headers["if-none-match"]);
        if (conditional && !injected) {
          injected = true;
          return fault;
        }
        return "pass";
      });
      return { store: through(proxy.endpoint, requestTimeoutMs), proxy };
    }

    it("a create that landed but answered 500 is recognised as ours", async () => {
      const { store } = await faulty("forward-then-500");
      const { version } = await store.put("amb/create-landed", enc("mine"), { mode: "create" });
      expect(dec((await direct.get("amb/create-landed")).body)).toBe("mine");
      expect((await direct.head("amb/create-landed")).version).toBe(version);
      expect(proxy?.seen.filter((r) => r.startsWith("PUT"))).toHaveLength(1);
    });

    it("an update that never reached the server is sent again and lands once", async () => {
      const v1 = (await direct.put("amb/update-retry", enc("v1"), { mode: "create" })).version;
      const { store } = await faulty("500-without-forward");
      await store.put("amb/update-retry", enc("v2"), { mode: { update: v1 } });
      expect(dec((await direct.get("amb/update-retry")).body)).toBe("v2");
      expect(proxy?.seen.filter((r) => r.startsWith("PUT"))).toHaveLength(2);
    });

    it("an update that timed out after landing is recognised as ours", async () => {
      const v1 = (await direct.put("amb/update-timeout", enc("v1"), { mode: "create" })).version;
      const { store } = await faulty("forward-then-hang", 1_000);
      await store.put("amb/update-timeout", enc("v2 by me"), { mode: { update: v1 } });
      expect(dec((await direct.get("amb/update-timeout")).body)).toBe("v2 by me");
    });

    it("a create with a lost answer where another writer holds the key reports AlreadyExists", async () => {
      await direct.put("amb/taken", enc("theirs"), { mode: "create" });
      const { store } = await faulty("500-without-forward");
      const error = await store.put("amb/taken", enc("mine"), { mode: "create" }).catch((e: unknown) => e);
      expect((error as StoreError).code).toBe("AlreadyExists");
      expect(dec((await direct.get("amb/taken")).body)).toBe("theirs");
    });

    it("an update with a lost answer after another writer moved on reports PreconditionFailed", async () => {
      const v1 = (await direct.put("amb/moved", enc("v1"), { mode: "create" })).version;
      await direct.put("amb/moved", enc("v2 by them"), { mode: { update: v1 } });
      const { store } = await faulty("500-without-forward");
      const error = await store.put("amb/moved", enc("v2 by me"), { mode: { update: v1 } }).catch((e: unknown) => e);
      expect((error as StoreError).code).toBe("PreconditionFailed");
      expect(dec((await direct.get("amb/moved")).body)).toBe("v2 by them");
    });

    it("retries idempotent calls through a 5xx", async () => {
      await direct.put("amb/idem", enc("x"));
      let failures = 0;
      proxy = await startFaultyProxy(upstream, (req) => {
        if ((req.method === "GET" || req.method === "HEAD") && failures < 2) {
          failures++;
          return "500-without-forward";
        }
        return "pass";
      });
      const store = through(proxy.endpoint, 30_000);
      expect(dec((await store.get("amb/idem")).body)).toBe("x");
      expect((await store.head("amb/idem")).size).toBe(1);
      expect(proxy.seen.filter((r) => r.startsWith("GET"))).toHaveLength(3);
    });

    extra?.(async (fault) => {
      const { store, proxy: p } = await faulty(fault);
      return { store, proxy: p };
    });
  });
}
