/**
 * The one conformance suite every store backend runs unchanged (in the spirit of object_store's shared
 * integration test and Go CDK's drivertest). A backend is only trusted for promotion when all of it passes.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { StoreError } from "../../src/store/errors.js";
import { createHash } from "node:crypto";
import { predictsVersions } from "../../src/store/types.js";
import type { ObjectStore, StreamBody } from "../../src/store/types.js";
import { ProcessPool } from "../helpers/race.js";
import { incrementCounter, raceCreates } from "../helpers/race-ops.js";
import type { CreateAttempt } from "../helpers/race-ops.js";
import { mapBounded as mapLimit } from "../../src/bounded.js";
import { describeEachStore } from "./harness/index.js";
import type { StoreFixture, StoreHarness } from "./harness/index.js";

const enc = (s: string) => new TextEncoder().encode(s);
const dec = (b: Uint8Array) => new TextDecoder().decode(b);

async function codeOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof StoreError) return error.code;
    throw error;
  }
  return "resolved";
}

async function keysOf(store: ObjectStore, prefix: string, startAfter?: string): Promise<string[]> {
  const out: string[] = [];
  for await (const entry of store.list(prefix, startAfter === undefined ? undefined : { startAfter }))
    out.push(entry.key);
  return out;
}

function suite(h: StoreHarness): void {
  let fx: StoreFixture;
  let store: ObjectStore;
  beforeAll(async () => {
    fx = await h.open();
    store = fx.store;
  });
  afterAll(async () => fx.dispose());

  describe("head, get, put, delete", () => {
    it("reports a missing key as NotFound on head, get and ranged get", async () => {
      expect(await codeOf(store.head("missing/key"))).toBe("NotFound");
      expect(await codeOf(store.get("missing/key"))).toBe("NotFound");
      expect(await codeOf(store.get("missing/key", { range: { offset: 0, length: 1 } }))).toBe("NotFound");
      const error = await store.head("missing/key").catch((e: unknown) => e);
      expect((error as StoreError).key).toBe("missing/key");
    });

    it("round-trips bytes and reports size and the version put returned", async () => {
      const bytes = Uint8Array.from({ length: 256 }, (_, i) => i);
      const { version } = await store.put("basic/all-bytes.bin", bytes);
      const head = await store.head("basic/all-bytes.bin");
      expect(head).toMatchObject({ key: "basic/all-bytes.bin", size: 256, version });
      expect(head.lastModified).toBeInstanceOf(Date);
      const got = await store.get("basic/all-bytes.bin");
      expect(Buffer.from(got.body).equals(Buffer.from(bytes))).toBe(true);
      expect(got.meta.version).toBe(version);
    });

    it("changes the version when the bytes change, overwrite replaces", async () => {
      const a = await store.put("basic/v", enc("one"));
      const b = await store.put("basic/v", enc("two"));
      expect(b.version).not.toBe(a.version);
      expect(dec((await store.get("basic/v")).body)).toBe("two");
      expect((await store.head("basic/v")).version).toBe(b.version);
    });

    it("stores empty objects", async () => {
      await store.put("basic/empty", new Uint8Array(0), { mode: "create" });
      expect((await store.head("basic/empty")).size).toBe(0);
      expect((await store.get("basic/empty")).body.byteLength).toBe(0);
    });

    it("reads byte ranges, clips at the end, refuses a range past the end", async () => {
      const big = Uint8Array.from({ length: 3 * 1024 * 1024 + 17 }, (_, i) => (i * 7) % 251);
      const { version } = await store.put("basic/big.bin", big);
      const mid = await store.get("basic/big.bin", { range: { offset: 1_000_000, length: 4096 } });
      expect(Buffer.from(mid.body).equals(Buffer.from(big.subarray(1_000_000, 1_004_096)))).toBe(true);
      expect(mid.meta.size).toBe(big.byteLength);
      expect(mid.meta.version).toBe(version);
      const tail = await store.get("basic/big.bin", { range: { offset: big.byteLength - 10, length: 100 } });
      expect(Buffer.from(tail.body).equals(Buffer.from(big.subarray(big.byteLength - 10)))).toBe(true);
      expect(await codeOf(store.get("basic/big.bin", { range: { offset: big.byteLength + 5, length: 1 } }))).toBe(
        "InvalidRange",
      );
    });

    it("exists answers as head does: absent, stored, a 'directory' of other keys, deleted", async () => {
      expect(await store.exists("exists/obj")).toBe(false);
      await store.put("exists/obj", enc("x"));
      await store.put("exists/dir/child", enc("y"));
      expect(await store.exists("exists/obj")).toBe(true);
      expect(await store.exists("exists/dir")).toBe(false); // a prefix of keys is not an object
      expect(await store.exists("exists/obj/below")).toBe(false);
      await store.delete("exists/obj");
      expect(await store.exists("exists/obj")).toBe(false);
    });

    it("deletes, and deleting an absent key succeeds", async () => {
      await store.put("basic/doomed", enc("x"));
      await store.delete("basic/doomed");
      expect(await codeOf(store.head("basic/doomed"))).toBe("NotFound");
      await expect(store.delete("basic/doomed")).resolves.toBeUndefined();
      await expect(store.delete("basic/never-was")).resolves.toBeUndefined();
    });
  });

  describe("put modes", () => {
    it("predicts the version a put gives, where it claims to (PredictsVersions): same in put, head and list", async () => {
      // The store says so exactly when its harness declares it (Azure's ETags are opaque, not derived from the bytes).
      expect(predictsVersions(store)).toBe(h.capabilities.predictsVersions);
      if (!predictsVersions(store)) return;
      const body = enc("predict me");
      const { version } = await store.put("modes/predict", body);
      expect(store.versionFor(body)).toBe(version);
      expect((await store.head("modes/predict")).version).toBe(version);
      expect(store.versionFor(enc("other bytes"))).not.toBe(version);
      for await (const e of store.list("modes/predict")) if (e.version !== undefined) expect(e.version).toBe(version);
    });

    it("create succeeds when absent and is refused when present, leaving the bytes alone", async () => {
      await store.put("modes/c", enc("first"), { mode: "create" });
      expect(await codeOf(store.put("modes/c", enc("second"), { mode: "create" }))).toBe("AlreadyExists");
      expect(dec((await store.get("modes/c")).body)).toBe("first");
    });

    it("create is refused for equal bytes too: presence, not content, decides", async () => {
      await store.put("modes/same", enc("same"), { mode: "create" });
      expect(await codeOf(store.put("modes/same", enc("same"), { mode: "create" }))).toBe("AlreadyExists");
    });

    it("update succeeds with the current version and is refused with a stale one", async () => {
      const v1 = (await store.put("modes/u", enc("1"), { mode: "create" })).version;
      const v2 = (await store.put("modes/u", enc("2"), { mode: { update: v1 } })).version;
      expect(v2).not.toBe(v1);
      expect(await codeOf(store.put("modes/u", enc("3"), { mode: { update: v1 } }))).toBe("PreconditionFailed");
      expect(dec((await store.get("modes/u")).body)).toBe("2");
      expect((await store.head("modes/u")).version).toBe(v2);
    });

    it("update of an absent key is refused", async () => {
      expect(await codeOf(store.put("modes/absent", enc("x"), { mode: { update: "0123456789abcdef" } }))).toBe(
        "PreconditionFailed",
      );
      expect(await codeOf(store.head("modes/absent"))).toBe("NotFound");
    });

    it("create after delete succeeds", async () => {
      await store.put("modes/again", enc("a"), { mode: "create" });
      await store.delete("modes/again");
      await store.put("modes/again", enc("b"), { mode: "create" });
      expect(dec((await store.get("modes/again")).body)).toBe("b");
    });
  });

  describe("list", () => {
    beforeAll(async () => {
      // '!', '-' and '.' sort before '/', so "a-b" comes before everything under "a/" (and a directory "a.d").
      for (const k of [
        "ls/a/1",
        "ls/a/2",
        "ls/a/b/3",
        "ls/ab",
        "ls/b/1",
        "ls/Z",
        "ls/é",
        "ls/z",
        "ls/a-b",
        "ls/a!c",
        "ls/a.d/1",
      ])
        await store.put(k, enc(k));
    });

    it("lists every key under a prefix in UTF-8 byte order, with sizes", async () => {
      const entries = [];
      for await (const e of store.list("ls/")) entries.push(e);
      expect(entries.map((e) => e.key)).toEqual([
        "ls/Z",
        "ls/a!c",
        "ls/a-b",
        "ls/a.d/1",
        "ls/a/1",
        "ls/a/2",
        "ls/a/b/3",
        "ls/ab",
        "ls/b/1",
        "ls/z",
        "ls/é",
      ]);
      expect(entries.find((e) => e.key === "ls/a/b/3")?.size).toBe(8);
      expect(entries.every((e) => e.lastModified instanceof Date)).toBe(true);
    });

    it("puts characters above U+FFFF after U+E000–U+FFFF, as UTF-8 does (UTF-16 order is the reverse)", async () => {
      const keys = ["or/a\u{1F5FA}/1", "or/a\uFFFD", "or/a\uE000/2", "or/a\u{1F600}", "or/b", "or/a", "or/a\uFF21"];
      for (const k of keys) await store.put(k, enc(k));
      const expected = ["or/a", "or/a\uE000/2", "or/a\uFF21", "or/a\uFFFD", "or/a\u{1F5FA}/1", "or/a\u{1F600}", "or/b"];
      expect(await keysOf(store, "or/")).toEqual(expected);
      expect(await keysOf(store, "or/", "or/a\uFFFD")).toEqual(expected.slice(4));
    });

    it("matches prefixes that end mid-name, and directory-like prefixes", async () => {
      expect(await keysOf(store, "ls/a")).toEqual([
        "ls/a!c",
        "ls/a-b",
        "ls/a.d/1",
        "ls/a/1",
        "ls/a/2",
        "ls/a/b/3",
        "ls/ab",
      ]);
      expect(await keysOf(store, "ls/a.")).toEqual(["ls/a.d/1"]);
      expect(await keysOf(store, "ls/a/")).toEqual(["ls/a/1", "ls/a/2", "ls/a/b/3"]);
      expect(await keysOf(store, "ls/nothing/")).toEqual([]);
    });

    it("resumes after a key", async () => {
      expect(await keysOf(store, "ls/", "ls/a/2")).toEqual(["ls/a/b/3", "ls/ab", "ls/b/1", "ls/z", "ls/é"]);
      expect(await keysOf(store, "ls/", "ls/a-c")).toEqual([
        "ls/a.d/1",
        "ls/a/1",
        "ls/a/2",
        "ls/a/b/3",
        "ls/ab",
        "ls/b/1",
        "ls/z",
        "ls/é",
      ]);
      expect(await keysOf(store, "ls/", "ls/a.d/1")).toEqual([
        "ls/a/1",
        "ls/a/2",
        "ls/a/b/3",
        "ls/ab",
        "ls/b/1",
        "ls/z",
        "ls/é",
      ]);
      expect(await keysOf(store, "ls/a/", "ls/a/a")).toEqual(["ls/a/b/3"]);
    });

    it("pages through more than 1,000 keys without losing or repeating one", async () => {
      const keys = Array.from({ length: 1100 }, (_, i) => `many/${String(i).padStart(5, "0")}`);
      await mapLimit(keys, 32, (k) => store.put(k, enc("x")));
      const listed = await keysOf(store, "many/");
      expect(listed).toEqual(keys);
    }, 180_000);
  });

  describe("key rules", () => {
    it("round-trips keys with unicode and spaces", async () => {
      const key = "names/dir with space/naïve – ünïcødé 地図 🗺.parquet";
      await store.put(key, enc("u"), { mode: "create" });
      expect(dec((await store.get(key)).body)).toBe("u");
      expect(await keysOf(store, "names/dir with space/")).toEqual([key]);
      expect(store.locate(key)).toContain("🗺");
    });

    const bad: [string, RegExp][] = [
      ["", /empty key/],
      ["..", /'\.\.' segment/],
      ["a/../b", /'\.\.' segment/],
      ["a/./b", /'\.' segment/],
      ["/leading", /leading '\/'/],
      ["trailing/", /trailing '\/'/],
      ["a//b", /empty path segment/],
      ["nul\u0000byte", /control character U\+0000/],
      ["new\nline", /control character U\+000a/],
      ["del\u007f", /control character U\+007f/],
      ["lone\ud800surrogate", /well-formed/],
      ["x".repeat(1025), /1024 bytes/],
    ];
    for (const [key, why] of bad) {
      it(`rejects ${JSON.stringify(key.length > 40 ? `${key.slice(0, 10)}…(${key.length})` : key)} before any I/O`, async () => {
        for (const op of [
          () => store.put(key, enc("x")),
          () => store.get(key),
          () => store.head(key),
          () => store.exists(key),
          () => store.delete(key),
        ]) {
          const error = await op().catch((e: unknown) => e);
          expect(error).toBeInstanceOf(StoreError);
          expect((error as StoreError).code).toBe("InvalidKey");
          expect((error as Error).message).toMatch(why);
        }
        const listing = (async () => {
          for await (const _ of store.list(`${key}/x`)) break;
        })();
        expect(await codeOf(listing)).toBe("InvalidKey");
      });
    }
  });

  describe("stream bodies (staged artifacts; S3 uploads one larger than a part in parts)", () => {
    // 300 KiB in odd chunks; parts of 64 KiB where the store uploads in parts (the tests' RGW accepts them).
    const bytes = (seed: number) => Uint8Array.from({ length: 300 * 1024 }, (_, i) => (i * 31 + seed * 7) & 0xff);
    const partBytes = 64 * 1024;
    const streamOf = (b: Uint8Array): StreamBody => ({
      size: b.byteLength,
      sha256: createHash("sha256").update(b).digest("hex"),
      async *chunks() {
        for (let at = 0; at < b.byteLength; at += 7777) yield b.subarray(at, Math.min(b.byteLength, at + 7777));
      },
    });
    const same = (a: Uint8Array, b: Uint8Array) => Buffer.compare(a, b) === 0;

    it("stores the chunks joined in every mode, and refuses a create or a stale update as bytes are refused", async () => {
      const key = "stream/modes";
      const first = await store.put(key, streamOf(bytes(1)), { mode: "create", partBytes });
      expect(same((await store.get(key)).body, bytes(1))).toBe(true);
      expect((await store.head(key)).version).toBe(first.version);
      // A store that uploads in parts took 300 KiB in five parts of 64 KiB.
      if (h.uploads) expect(await h.uploads.partsOf(store, key)).toBe(5);
      expect(await codeOf(store.put(key, streamOf(bytes(2)), { mode: "create", partBytes }))).toBe("AlreadyExists");
      expect(same((await store.get(key)).body, bytes(1))).toBe(true);
      const second = await store.put(key, streamOf(bytes(2)), { mode: { update: first.version }, partBytes });
      expect(second.version).not.toBe(first.version);
      expect(await codeOf(store.put(key, streamOf(bytes(3)), { mode: { update: first.version }, partBytes }))).toBe(
        "PreconditionFailed",
      );
      await store.put(key, streamOf(bytes(3)), { partBytes });
      const got = await store.get(key, { range: { offset: 100_000, length: 50_000 } });
      expect(same(got.body, bytes(3).subarray(100_000, 150_000))).toBe(true);
      expect(got.meta.size).toBe(300 * 1024);
    });

    it("8 concurrent creates of the same bytes (twin runs of one artifact): each wins or is told AlreadyExists, the bytes stand", async () => {
      for (let round = 0; round < 3; round++) {
        const key = `stream/twins/${round}`;
        const outcomes = await Promise.all(
          Array.from({ length: 8 }, () => codeOf(store.put(key, streamOf(bytes(4)), { mode: "create", partBytes }))),
        );
        expect(outcomes.every((o) => o === "resolved" || o === "AlreadyExists")).toBe(true);
        expect(outcomes).toContain("resolved");
        expect(same((await store.get(key)).body, bytes(4))).toBe(true);
      }
    });

    it("a create of other bytes after a completed one is refused and changes nothing", async () => {
      const key = "stream/other-bytes";
      await store.put(key, streamOf(bytes(5)), { mode: "create", partBytes });
      expect(await codeOf(store.put(key, streamOf(bytes(6)), { mode: "create", partBytes }))).toBe("AlreadyExists");
      expect(same((await store.get(key)).body, bytes(5))).toBe(true);
    });
  });

  describe("races between promises", () => {
    it("20 concurrent creates of one key: exactly one winner, and the stored bytes are its bytes (10 rounds)", async () => {
      for (let round = 0; round < 10; round++) {
        const key = `race/create/promises/${round}`;
        const results = await raceCreates(store, key, "promise", 20);
        const winners = results.filter((r) => r.won);
        expect(winners).toHaveLength(1);
        expect(results.filter((r) => !r.won).every((r) => r.error === "AlreadyExists")).toBe(true);
        expect(dec((await store.get(key)).body)).toBe(winners[0]?.body);
      }
    });

    it("5 workers × 10 compare-and-swap increments end at exactly 50", async () => {
      const key = "race/cas/promises";
      await store.put(key, enc(JSON.stringify({ n: 0 })), { mode: "create" });
      const conflicts = await Promise.all(
        Array.from({ length: 5 }, async (_, w) => {
          let c = 0;
          for (let i = 0; i < 10; i++) c += await incrementCounter(store, key, `promise-${w}-${i}`);
          return c;
        }),
      );
      expect(JSON.parse(dec((await store.get(key)).body)).n).toBe(50);
      // The race was real: some increments had to retry.
      expect(conflicts.reduce((a, b) => a + b, 0)).toBeGreaterThan(0);
    });
  });

  // Memory stores live inside one process by design; every backend that can be shared runs these.
  if (!h.capabilities.crossProcess) return;
  describe("races between OS processes", () => {
    let pool: ProcessPool;
    beforeAll(async () => {
      if (!fx.url) throw new Error(`${h.name} fixture has no URL for other processes`);
      pool = await ProcessPool.start(fx.url, 5, fx.env);
    }, 60_000);
    afterAll(async () => pool?.stop());

    it("4 processes × 5 concurrent creates of one key: exactly one winner, its bytes stored (10 rounds)", async () => {
      for (let round = 0; round < 10; round++) {
        const key = `race/create/processes/${round}`;
        const answers = await pool.round<{ results: CreateAttempt[] }>(
          { op: "create", key, tag: `c${round}`, count: 5 },
          4,
        );
        const all = answers.flatMap((a) => a.results);
        expect(all).toHaveLength(20);
        const winners = all.filter((r) => r.won);
        expect(winners).toHaveLength(1);
        expect(all.filter((r) => !r.won).every((r) => r.error === "AlreadyExists")).toBe(true);
        expect(dec((await store.get(key)).body)).toBe(winners[0]?.body);
      }
    }, 120_000);

    it("5 processes × 10 compare-and-swap increments end at exactly 50", async () => {
      const key = "race/cas/processes";
      await store.put(key, enc(JSON.stringify({ n: 0 })), { mode: "create" });
      const answers = await pool.round<{ done: number; conflicts: number }>({
        op: "increment",
        key,
        tag: "inc",
        count: 10,
      });
      expect(answers.map((a) => a.done)).toEqual([10, 10, 10, 10, 10]);
      expect(JSON.parse(dec((await store.get(key)).body)).n).toBe(50);
    }, 120_000);
  });
}

describeEachStore("ObjectStore conformance", suite);
