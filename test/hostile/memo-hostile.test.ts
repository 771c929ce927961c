/**
 * Issue 22, items 5 and 9: memo requests that JSON would collapse (Date, Set, Map, class instances) never share
 * one answer; a claim that never lapses, or garbage where a claim or record should be, never hangs a run or
 * fails it with a bare parse error; a stop request ends a wait on another run's claim, through the real CLI.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { memoized, memoKey } from "../../src/protocol/memo.js";
import { FsStore } from "../../src/store/fs.js";
import { MemoryStore } from "../../src/store/memory.js";
import { spawnCli } from "../helpers/cli.js";
import { snapshot } from "../helpers/snapshot.js";

const claimOf = (task: string, name: string, request: unknown) =>
  memoKey(task, name, request).replace(/\.json$/, ".claim");
const put = (store: MemoryStore | FsStore, key: string, text: string) => store.put(key, new TextEncoder().encode(text));

describe("memo: hostile requests and claims", () => {
  let dir: string;
  beforeAll(() => void (dir = mkdtempSync(join(tmpdir(), "georefresh-memo-hostile-"))));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("two dates, sets and maps are two requests; order inside a set or map is not", async () => {
    const store = new MemoryStore("memo-values");
    let calls = 0;
    const call = async () => ++calls;
    const a = await memoized(store, "t", "svc", { since: new Date(Date.UTC(2026, 0, 1)) }, call);
    const b = await memoized(store, "t", "svc", { since: new Date(Date.UTC(2026, 5, 1)) }, call);
    expect([a, b, calls]).toEqual([1, 2, 2]);
    expect(await memoized(store, "t", "svc", { since: new Date(Date.UTC(2026, 0, 1)) }, call)).toBe(1);
    expect(await memoized(store, "t", "svc", { ids: new Set([1, 2]) }, call)).toBe(3);
    expect(await memoized(store, "t", "svc", { ids: new Set([2, 1]) }, call)).toBe(3);
    expect(await memoized(store, "t", "svc", { ids: new Set([1, 3]) }, call)).toBe(4);
    expect(await memoized(store, "t", "svc", { m: new Map([["a", 1]]) }, call)).toBe(5);
    expect(await memoized(store, "t", "svc", { m: new Map([["a", 2]]) }, call)).toBe(6);
    expect(calls).toBe(6);
    expect(memoKey("t", "svc", { since: new Date(1) })).not.toBe(memoKey("t", "svc", { since: new Date(2) }));
  });

  it("a value that cannot be keyed faithfully is refused, naming the memo call and where it stands", async () => {
    const store = new MemoryStore("memo-refused");
    class Point {
      constructor(readonly x: number) {}
    }
    for (const request of [{ p: new Point(1) }, { d: new Date(Number.NaN) }, { b: new Uint8Array(2) }]) {
      await expect(memoized(store, "t", "svc", request, async () => 1)).rejects.toThrow(
        /ctx\.memo\("svc"\) in task t: the request cannot be keyed: .*at \$\.[pdb]/,
      );
    }
    expect(await snapshot(store, "memo/")).toEqual({});
  });

  it("a claim whose `until` is far in the future lapses after the reader's lease", async () => {
    const store = new MemoryStore("memo-future");
    await put(store, claimOf("t", "svc", { a: 1 }), JSON.stringify({ until: Date.now() + 1e12 }));
    const started = Date.now();
    const answer = await memoized(store, "t", "svc", { a: 1 }, async () => "mine", { leaseMs: 300, pollMs: 20 });
    expect(answer).toBe("mine");
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it("garbage or null where a claim or record should be: an error naming the key and what to do", async () => {
    const store = new FsStore(join(dir, "garbage"));
    for (const [n, text] of [
      [1, "not json"],
      [2, "null"],
      [3, '{"until":"tomorrow"}'],
    ] as const) {
      await put(store, claimOf("t", "svc", { n }), text);
      const error = await memoized(store, "t", "svc", { n }, async () => 1, { leaseMs: 300 }).catch((e: Error) => e);
      expect(String(error)).toMatch(/MemoError: .*\.claim is not a memo claim .*Delete it and run again/);
      expect(String(error)).toContain(join(dir, "garbage"));
    }
    await put(store, memoKey("t", "svc", { n: 4 }), "null");
    await expect(memoized(store, "t", "svc", { n: 4 }, async () => 1)).rejects.toThrow(
      /memo\/t\/svc\/[0-9a-f]{32}\.json is not a memo record \(request, response expected\).*Delete it/,
    );
  });

  it("a stop request ends a wait on another run's live claim at once", async () => {
    const store = new MemoryStore("memo-stop");
    await put(store, claimOf("t", "svc", { s: 1 }), JSON.stringify({ until: Date.now() + 600_000 }));
    const stop = new AbortController();
    const waiting = memoized(store, "t", "svc", { s: 1 }, async () => 1, {
      leaseMs: 600_000,
      pollMs: 50,
      signal: stop.signal,
    });
    setTimeout(() => stop.abort(), 300);
    const started = Date.now();
    await expect(waiting).rejects.toThrow(/stopped while waiting for another run's call .*nothing was written/);
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it("SIGTERM to a backfill whose partition waits on a claim: exit 143 within seconds, nothing promoted", async () => {
    const root = join(dir, "cli");
    mkdirSync(root, { recursive: true });
    writeFileSync(
      join(root, "task.mjs"),
      `export default { name: "waits", version: "1", cadence: "daily", regions: ["a"], inputs: () => ({}), crs: "OGC:CRS84",
  async compute(ctx) { await ctx.memo("svc", { q: 1 }, async () => 1);
    return [{ geometry: { type: "Point", coordinates: [1, 2] }, properties: {} }]; } };\n`,
    );
    writeFileSync(
      join(root, "config.json"),
      JSON.stringify({ store: "./store", datasets: { w: { module: "./task.mjs" } } }),
    );
    const store = new FsStore(join(root, "store"));
    await put(store, claimOf("waits", "svc", { q: 1 }), JSON.stringify({ until: Date.now() + 600_000 }));
    const child = spawnCli(
      [
        "backfill",
        "--config",
        join(root, "config.json"),
        "--dataset",
        "w",
        "--from",
        "2026-01-01",
        "--to",
        "2026-01-01",
        "--workers",
        "1",
      ],
      { GEOREFRESH_MEMO_LEASE_MS: "600000" },
    );
    let stderr = "";
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    const exited = new Promise<number | null>((r) => child.on("close", (code) => r(code)));
    await new Promise((r) => setTimeout(r, 6_000)); // well inside the wait
    const sent = Date.now();
    child.kill("SIGTERM");
    const code = await exited;
    expect(Date.now() - sent).toBeLessThan(10_000);
    expect(code, stderr).toBe(143);
    expect(stderr).toMatch(/stopped while waiting for another run's call/);
    expect(await snapshot(store, "manifests/")).toEqual({});
    expect(await snapshot(store, "artifacts/")).toEqual({});
  }, 60_000);
});
