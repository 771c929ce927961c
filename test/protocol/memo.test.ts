/**
 * ctx.memo: an external call made once per distinct request, across concurrent twins (promises and processes),
 * crashes at every store call with their re-runs, and later runs; claims of dead runs are taken over.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { collectGarbage } from "../../src/gc/gc.js";
import { memoized, memoKey } from "../../src/protocol/memo.js";
import { refreshPartition } from "../../src/protocol/refresh.js";
import { FsStore } from "../../src/store/fs.js";
import { MemoryStore } from "../../src/store/memory.js";
import { NotFoundError } from "../../src/store/errors.js";
import { cityCatchments, routingCalls } from "../../src/builtins/city-catchments.js";
import { FaultyStore } from "../helpers/faulty-store.js";

const run = promisify(execFile);
const WORKER = fileURLToPath(new URL("../helpers/memo-worker.ts", import.meta.url));
const VERSIONS = {
  catchment_model: [{ from: "2025-01-01", value: "catchment-v1" }],
  population_vintage: [{ from: "2025-01-01", value: "geonames-2019" }],
};
const HOUR = 3_600_000;

describe("memoized external calls", () => {
  let dir: string;
  const lease = process.env.GEOREFRESH_MEMO_LEASE_MS;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "georefresh-memo-"));
    process.env.GEOREFRESH_MEMO_LEASE_MS = "300"; // a crashed run's claim lapses quickly here
  });
  afterAll(() => {
    if (lease === undefined) delete process.env.GEOREFRESH_MEMO_LEASE_MS;
    else process.env.GEOREFRESH_MEMO_LEASE_MS = lease;
    rmSync(dir, { recursive: true, force: true });
  });

  it("8 concurrent callers of one request: one call, one answer for all; another request is another call", async () => {
    const store = new MemoryStore("memo-promises");
    let calls = 0;
    const service = async () => {
      calls++;
      await new Promise((r) => setTimeout(r, 100));
      return { minutes: 15, at: calls };
    };
    const answers = await Promise.all(
      Array.from({ length: 8 }, () => memoized(store, "t", "iso", { lon: 1, lat: 2 }, service)),
    );
    expect(calls).toBe(1);
    expect(new Set(answers.map((a) => JSON.stringify(a))).size).toBe(1);
    // Key order does not make a new request; a different value does.
    await memoized(store, "t", "iso", { lat: 2, lon: 1 }, service);
    expect(calls).toBe(1);
    await memoized(store, "t", "iso", { lon: 1, lat: 3 }, service);
    expect(calls).toBe(2);
  });

  it("a twin whose first look missed an answer that landed before its claim: it reads the answer, never calls", async () => {
    // The interleaving the process race can hit: A stores its answer and releases its claim between B's first
    // look (a miss) and B's claim (which then succeeds). B must look again before calling.
    const store = new MemoryStore("memo-late-look");
    const request = { site: "late", minutes: 15 };
    await memoized(store, "t", "iso", request, async () => ({ by: "A" }));
    const key = memoKey("t", "iso", request);
    let missed = false;
    const late = new Proxy(store, {
      get(target, prop, receiver) {
        if (prop === "get")
          return async (k: string, o?: never) => {
            if (k === key && !missed) {
              missed = true;
              throw new NotFoundError(`${k} (a look taken before the answer landed)`);
            }
            return target.get(k, o);
          };
        const value = Reflect.get(target, prop, receiver) as unknown;
        return typeof value === "function" ? (value as (...a: unknown[]) => unknown).bind(target) : value;
      },
    });
    let calls = 0;
    const answer = await memoized(late, "t", "iso", request, async () => ({ by: `B${++calls}` }));
    expect(missed).toBe(true);
    expect([answer, calls]).toEqual([{ by: "A" }, 0]);
    expect(await store.exists(key.replace(/\.json$/, ".claim"))).toBe(false);
  });

  it("4 processes at once on one filesystem store: the service is called by exactly one", async () => {
    const storeDir = join(dir, "procs");
    const log = join(dir, "calls.log");
    writeFileSync(log, "");
    const outs = await Promise.all(
      Array.from({ length: 4 }, () =>
        run(process.execPath, ["--import", "tsx", WORKER, storeDir, log, "site-7"], {
          env: { ...process.env, GEOREFRESH_MEMO_LEASE_MS: "15000" },
        }),
      ),
    );
    const callers = readFileSync(log, "utf8").trim().split("\n");
    expect(callers).toHaveLength(1);
    expect(outs.map((o) => JSON.parse(o.stdout).by)).toEqual(Array(4).fill(Number(callers[0])));
  }, 60_000);

  it("a crash at any store call of a catchments run, then its re-run: the routing service is asked once", async () => {
    const partition = { dataset: "c", region: "RI", date: "2026-01-01" };
    const clean = new MemoryStore("memo-clean");
    routingCalls.count = 0;
    const ok = await refreshPartition({ store: clean, task: cityCatchments, partition, versions: VERSIONS });
    expect([ok.outcome, routingCalls.count]).toEqual(["promoted", 1]);
    let total = 0;
    let twice = 0;
    for (const mode of ["before", "after-landed"] as const) {
      for (let k = 1; ; k++) {
        const inner = new MemoryStore(`memo-crash-${mode}-${k}`);
        const faulty = new FaultyStore(inner, k, mode);
        routingCalls.count = 0;
        const crashed = await refreshPartition({ store: faulty, task: cityCatchments, partition, versions: VERSIONS });
        if (faulty.calls < k) break; // this run needed fewer calls than k: every crash point is covered
        // A crash at a call whose failure the run may ignore (releasing a claim, deleting its temp key) still ends
        // promoted; any other ends failed.
        expect(["failed", "promoted"]).toContain(crashed.outcome);
        await new Promise((r) => setTimeout(r, 350)); // a claim the crash left lapses
        const rerun = await refreshPartition({ store: inner, task: cityCatchments, partition, versions: VERSIONS });
        expect(["promoted", "reconciled", "unchanged"], `${mode} ${k}: ${rerun.message}`).toContain(rerun.outcome);
        expect(rerun.sha256).toBe(ok.sha256);
        total++;
        // Only a crash after the service answered and before its answer was stored can make it answer twice.
        if (routingCalls.count === 2) twice++;
        else expect(routingCalls.count, `${mode} crash at call ${k}`).toBe(1);
      }
    }
    expect(total).toBeGreaterThan(10);
    expect(twice).toBeLessThanOrEqual(1); // the answer's own PUT, lost before it landed
  }, 120_000);

  it("a later run, and a later month with the same sites and model, reuse the stored answer", async () => {
    const store = new MemoryStore("memo-later");
    routingCalls.count = 0;
    await refreshPartition({
      store,
      task: cityCatchments,
      partition: { dataset: "c", region: "DE", date: "2026-01-01" },
      versions: VERSIONS,
    });
    await refreshPartition({
      store,
      task: cityCatchments,
      partition: { dataset: "c", region: "DE", date: "2026-02-01" },
      versions: VERSIONS,
    });
    expect(routingCalls.count).toBe(1);
  }, 60_000);

  it("gc: a dead claim goes with the temp keys; answers only with --memo", async () => {
    const store = new FsStore(join(dir, "gc"));
    await memoized(store, "t", "iso", { a: 1 }, async () => ({ ok: true }));
    const claim = memoKey("t", "iso", { b: 2 }).replace(/\.json$/, ".claim");
    await store.put(claim, new TextEncoder().encode(JSON.stringify({ until: 0 })));
    const later = new Date(Date.now() + 2 * HOUR);
    const plain = await collectGarbage(store, { olderThanMs: HOUR, apply: true, now: later });
    expect([plain.temp, plain.memo]).toEqual([[claim], []]);
    const withMemo = await collectGarbage(store, { olderThanMs: HOUR, apply: true, now: later, memo: true });
    expect(withMemo.memo).toEqual([memoKey("t", "iso", { a: 1 })]);
    expect(await store.exists(memoKey("t", "iso", { a: 1 }))).toBe(false);
    expect(() => memoKey("t", "../x", {})).toThrow(/memo name "\.\.\/x" is not allowed/);
  });
});
