/** The filesystem store refuses symlinks and special files everywhere, so every command sees the same store. */
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { SpecialFileError } from "../../src/store/errors.js";
import { FsStore } from "../../src/store/fs.js";

async function listAll(store: FsStore, prefix: string): Promise<string[]> {
  const out: string[] = [];
  for await (const e of store.list(prefix)) out.push(e.key);
  return out;
}

describe("fs store: symlinks and special files", () => {
  let dir: string;
  let store: FsStore;
  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), "georefresh-special-"));
    store = new FsStore(join(dir, "store"));
    await store.put("manifests/a/region=x/date=2026-01-01.json", new TextEncoder().encode("{}"));
    // Elsewhere on disk: a directory and a file that links inside the store point at.
    mkdirSync(join(dir, "outside", "region=x"), { recursive: true });
    writeFileSync(join(dir, "outside", "region=x", "date=2026-01-01.json"), "{}");
    writeFileSync(join(dir, "secret.txt"), "outside the store");
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it("a symlinked directory: every operation and every listing that reaches it refuses, naming it", async () => {
    symlinkSync(join(dir, "outside"), join(dir, "store", "manifests", "b"));
    const key = "manifests/b/region=x/date=2026-01-01.json";
    for (const op of [
      () => store.get(key),
      () => store.head(key),
      () => store.exists(key),
      () => store.delete(key),
      () => store.put(key, new Uint8Array(1), { mode: "create" }),
    ]) {
      await expect(op()).rejects.toBeInstanceOf(SpecialFileError);
    }
    await expect(listAll(store, "manifests/")).rejects.toThrow(/manifests\/b is a symlink/);
    await expect(listAll(store, "manifests/b/")).rejects.toBeInstanceOf(SpecialFileError);
    await expect(listAll(store, "manifests/b/region=x/")).rejects.toBeInstanceOf(SpecialFileError);
    // What lies before the link in byte order was listed; nothing beside it is affected.
    expect(await listAll(store, "manifests/a/")).toEqual(["manifests/a/region=x/date=2026-01-01.json"]);
    const error = await listAll(store, "manifests/").catch((e: unknown) => e as SpecialFileError);
    expect((error as SpecialFileError).key).toBe("manifests/b");
    // The file outside was never touched.
    expect(execFileSync("cat", [join(dir, "outside", "region=x", "date=2026-01-01.json")], { encoding: "utf8" })).toBe(
      "{}",
    );
  });

  it("a symlinked file is refused, and deleting it never touches its target", async () => {
    mkdirSync(join(dir, "store", "artifacts"), { recursive: true });
    symlinkSync(join(dir, "secret.txt"), join(dir, "store", "artifacts", "link.parquet"));
    for (const op of [
      () => store.get("artifacts/link.parquet"),
      () => store.head("artifacts/link.parquet"),
      () => store.exists("artifacts/link.parquet"),
      () => store.delete("artifacts/link.parquet"),
    ]) {
      await expect(op()).rejects.toThrow(/artifacts\/link.parquet is a symlink/);
    }
    await expect(
      store.put("artifacts/link.parquet", new Uint8Array(1), { mode: { update: "x" } }),
    ).rejects.toBeInstanceOf(SpecialFileError);
    await expect(listAll(store, "artifacts/")).rejects.toBeInstanceOf(SpecialFileError);
    expect(execFileSync("cat", [join(dir, "secret.txt")], { encoding: "utf8" })).toBe("outside the store");
  });

  it("a FIFO is refused at once instead of blocking the reader", async () => {
    mkdirSync(join(dir, "store", "manifests", "c"), { recursive: true });
    execFileSync("mkfifo", [join(dir, "store", "manifests", "c", "fifo.json")]);
    const t0 = Date.now();
    await expect(store.get("manifests/c/fifo.json")).rejects.toThrow(/is a FIFO/);
    await expect(store.exists("manifests/c/fifo.json")).rejects.toThrow(/is a FIFO/);
    await expect(listAll(store, "manifests/c/")).rejects.toThrow(/is a FIFO/);
    expect(Date.now() - t0).toBeLessThan(2_000);
  });

  it("a root that is itself a symlink (./data on another disk) works as usual", async () => {
    symlinkSync(join(dir, "store"), join(dir, "linked-root"));
    const linked = new FsStore(join(dir, "linked-root"));
    expect(await linked.exists("manifests/a/region=x/date=2026-01-01.json")).toBe(true);
    await linked.put("artifacts/k.parquet", new Uint8Array([1]), { mode: "create" });
    expect(await listAll(linked, "")).toEqual(["artifacts/k.parquet", "manifests/a/region=x/date=2026-01-01.json"]);
  });
});
