/**
 * Two containers on one volume are two pid namespaces: each sees the other's pids as absent or as someone else.
 * Real pid namespaces (unshare, as root) prove that a lock held from one is never broken from the other, and
 * that compare-and-swap across them loses no increment.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { FsStore } from "../../src/store/fs.js";
import { withKeyLock } from "../../src/store/fs-lock.js";
import { ProcessPool } from "../helpers/race.js";

const HOLDER = fileURLToPath(new URL("../helpers/lock-holder.ts", import.meta.url));
const NS = ["unshare", "--pid", "--fork", "--mount-proc"];

describe("fs locks across pid namespaces", () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "georefresh-pidns-"));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it("a lock held from another pid namespace is waited for, never broken", async () => {
    const child = spawn(NS[0] as string, [...NS.slice(1), process.execPath, "--import", "tsx", HOLDER, dir, "1500"], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    const exited = new Promise((r) => child.once("exit", r));
    const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
    const locked = (await lines.next()).value as string;
    expect(locked).toMatch(/^locked \d+$/);
    // The holder's pid inside its namespace is 1 or 2: outside, that is init or kthreadd, with another start time.
    const acquired = await withKeyLock(join(dir, "key.lock"), join(dir, "staging"), "the test key", 30_000, async () =>
      Date.now(),
    );
    const released = Number(((await lines.next()).value as string).split(" ")[1]);
    expect(acquired).toBeGreaterThanOrEqual(released);
    await exited;
  });

  it("compare-and-swap increments from two pid namespaces and the host all land (4 processes × 15)", async () => {
    const store = join(dir, "store");
    await new FsStore(store).put("counter", new TextEncoder().encode(JSON.stringify({ n: 0 })), { mode: "create" });
    const pool = await ProcessPool.start(store, 4, {}, undefined, (i) => (i < 2 ? NS : []));
    try {
      const answers = await pool.round<{ done: number }>({ op: "increment", key: "counter", tag: "inc", count: 15 });
      expect(answers.map((a) => a.done)).toEqual([15, 15, 15, 15]);
    } finally {
      await pool.stop();
    }
    const body = new TextDecoder().decode((await new FsStore(store).get("counter")).body);
    expect((JSON.parse(body) as { n: number }).n).toBe(60);
  });
});
