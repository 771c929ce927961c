/** Filesystem-only promises: killed writers leave nothing visible and no stuck lock; readers see whole objects. */
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { FsStore } from "../../src/store/fs.js";
import { SCOPE } from "../../src/store/fs-lock.js";

const sha = (b: Uint8Array) => createHash("sha256").update(b).digest("hex");
const lockPathOf = (root: string, key: string) =>
  join(root, ".georefresh", "locks", `${createHash("sha256").update(key).digest("hex")}.lock`);

async function keys(store: FsStore): Promise<string[]> {
  const out: string[] = [];
  for await (const e of store.list("")) out.push(e.key);
  return out;
}

/** A pid that belonged to a process that has exited. */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ["-e", ""]);
  await new Promise((r) => child.once("exit", r));
  return child.pid as number;
}

describe("filesystem store under crashes", () => {
  let dir: string;
  let store: FsStore;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "georefresh-crash-"));
    store = new FsStore(dir, { lockTimeoutMs: 2_000 });
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it("breaks a lock left by a killed process instead of waiting on it", async () => {
    const { version } = await store.put("k", new TextEncoder().encode("v1"), { mode: "create" });
    writeFileSync(lockPathOf(dir, "k"), JSON.stringify({ pid: await deadPid(), started: "1", token: "dead" }));
    const started = Date.now();
    await store.put("k", new TextEncoder().encode("v2"), { mode: { update: version } });
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(new TextDecoder().decode((await store.get("k")).body)).toBe("v2");
    expect(readdirSync(join(dir, ".georefresh", "locks"))).toEqual([]);
  });

  it("sweeps locks and staged files of dead processes on its first write, even on keys it never writes", async () => {
    const dead = await deadPid();
    await store.put("other", new TextEncoder().encode("x"));
    writeFileSync(lockPathOf(dir, "never-written-again"), JSON.stringify({ pid: dead, started: "1", token: "dead" }));
    writeFileSync(lockPathOf(dir, "held-by-me"), JSON.stringify({ pid: process.pid, started: "", token: "alive" }));
    writeFileSync(join(dir, ".georefresh", "staging", `${SCOPE}-${dead}-1-abc.part`), "partial");
    writeFileSync(join(dir, ".georefresh", "staging", `${SCOPE}-${process.pid}-0-live.part`), "in progress");
    const next = new FsStore(dir);
    expect(readdirSync(join(dir, ".georefresh", "locks"))).toHaveLength(2); // nothing happens before a write
    await next.put("other", new TextEncoder().encode("y"));
    expect(readdirSync(join(dir, ".georefresh", "locks"))).toEqual([lockPathOf(dir, "held-by-me").split("/").pop()]);
    expect(readdirSync(join(dir, ".georefresh", "staging"))).toEqual([`${SCOPE}-${process.pid}-0-live.part`]);
  });

  it("waits for a live holder and then says who holds the lock", async () => {
    await store.put("k", new TextEncoder().encode("v1"));
    writeFileSync(lockPathOf(dir, "k"), JSON.stringify({ pid: process.pid, started: "", token: "alive" }));
    const error = await store.put("k", new TextEncoder().encode("v2")).catch((e: unknown) => e);
    expect((error as Error).name).toBe("LockTimeoutError");
    expect((error as Error).message).toContain(`locked by process ${process.pid}`);
    expect(new TextDecoder().decode((await store.get("k")).body)).toBe("v1");
  });

  it("a writer killed with SIGKILL mid-write leaves no visible object and no stuck lock (10 trials)", async () => {
    const script = `
      import { FsStore } from ${JSON.stringify(new URL("../../src/store/fs.ts", import.meta.url).pathname)};
      const store = new FsStore(process.argv[1]);
      const big = new Uint8Array(48 * 1024 * 1024).fill(7);
      process.stdout.write("go\\n");
      for (let i = 0; ; i++) {
        await store.put("victim/obj-" + (i % 3), big, { mode: i % 2 ? "overwrite" : "create" }).catch(() => {});
        await store.put("victim/counter", new TextEncoder().encode(String(i)));
      }`;
    let killedMidWrite = 0;
    for (let trial = 0; trial < 10; trial++) {
      const child = spawn(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script, dir], {
        stdio: ["ignore", "pipe", "inherit"],
      });
      await new Promise<void>((resolve) => child.stdout.once("data", () => resolve()));
      await new Promise((r) => setTimeout(r, 20 + trial * 37));
      child.kill("SIGKILL");
      await new Promise((r) => child.once("exit", r));
      const staging = join(dir, ".georefresh", "staging");
      // Killed before its first write began (a loaded machine), the store has no staging folder yet.
      const leftovers = existsSync(staging)
        ? readdirSync(staging).filter((f) => f.startsWith(`${SCOPE}-${child.pid}-`))
        : [];
      if (leftovers.length > 0) killedMidWrite++;
      // The next process's first write sweeps the dead writer's staged parts and locks.
      store = new FsStore(dir, { lockTimeoutMs: 2_000 });
      await store.put("sweep", new TextEncoder().encode("x"));
      expect(readdirSync(staging).filter((f) => f.startsWith(`${SCOPE}-${child.pid}-`))).toEqual([]);
      expect(readdirSync(join(dir, ".georefresh", "locks"))).toEqual([]);
      for (const key of await keys(store)) {
        const { body } = await store.get(key);
        if (key.startsWith("victim/obj-")) {
          expect(body.byteLength).toBe(48 * 1024 * 1024);
          expect(body.every((b) => b === 7)).toBe(true);
        }
      }
      // No stuck lock: every key can still be updated at once.
      await store.put("victim/counter", new TextEncoder().encode("after"), { mode: "overwrite" });
      await store.delete("victim/obj-0");
    }
    // The kills really landed inside writes (a staged part was left behind), not only between them.
    expect(killedMidWrite).toBeGreaterThan(0);
  }, 120_000);

  it("readers see either the old or the new bytes while writers replace a large object", async () => {
    const versions = Array.from({ length: 4 }, (_, i) => new Uint8Array(8 * 1024 * 1024).fill(i + 1));
    const known = new Set(versions.map(sha));
    await store.put("hot", versions[0] as Uint8Array);
    let writing = true;
    const writer = (async () => {
      for (let i = 0; i < 24; i++) await store.put("hot", versions[i % 4] as Uint8Array);
      writing = false;
    })();
    let reads = 0;
    while (writing) {
      const { body, meta } = await store.get("hot");
      expect(known.has(sha(body))).toBe(true);
      expect(meta.version).toBe(sha(body));
      reads++;
    }
    await writer;
    expect(reads).toBeGreaterThan(0);
  }, 60_000);

  it("keeps staging files and locks out of listings, and reserves its internal prefix", async () => {
    await store.put("a/b", new TextEncoder().encode("x"));
    writeFileSync(join(dir, ".georefresh", "staging", "left-by-a-crash.part"), "partial");
    expect(await keys(store)).toEqual(["a/b"]);
    const error = await store.put(".georefresh/staging/x", new TextEncoder().encode("x")).catch((e: unknown) => e);
    expect((error as Error).message).toMatch(/reserved/);
  });

  it("explains a key that is both an object and a prefix", async () => {
    await store.put("clash", new TextEncoder().encode("file"));
    const error = await store.put("clash/child", new TextEncoder().encode("x")).catch((e: unknown) => e);
    expect((error as Error).message).toMatch(/both an object and a prefix/);
  });
});
