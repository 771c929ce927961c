import { createHash } from "node:crypto";
import { existsSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { describe, expect, it } from "vitest";
import { StagedArtifact } from "../../src/protocol/staging.js";

const bytes = Uint8Array.from({ length: 100_000 }, (_, i) => (i * 13) & 0xff);
const sha = createHash("sha256").update(bytes).digest("hex");
const stagedFiles = () => readdirSync(tmpdir()).filter((f) => f.startsWith("georefresh-staged-"));

async function stage(memoryBytes: number): Promise<StagedArtifact> {
  const s = new StagedArtifact(memoryBytes, 4096);
  for (let at = 0; at < bytes.length; at += 7_001)
    await s.write(bytes.subarray(at, Math.min(bytes.length, at + 7_001)));
  return s.end();
}

describe("a staged artifact", () => {
  it("gives the same bytes, ranges and sha256 from memory and from its temp file, and removes the file", async () => {
    const before = new Set(stagedFiles());
    const [inMemory, spilled] = [await stage(1 << 20), await stage(10_000)];
    expect([inMemory.spilled, spilled.spilled]).toEqual([false, true]);
    const fresh = stagedFiles().filter((f) => !before.has(f));
    expect(fresh).toHaveLength(1);
    for (const s of [inMemory, spilled]) {
      expect(s.sha256).toBe(sha);
      expect(s.size).toBe(bytes.length);
      expect(Buffer.compare(await s.read(6_990, 20_000), bytes.subarray(6_990, 26_990))).toBe(0);
      const parts: Uint8Array[] = [];
      for await (const c of s.chunks()) parts.push(c);
      expect(Buffer.compare(Buffer.concat(parts), bytes)).toBe(0);
      await expect(s.read(99_999, 2)).rejects.toThrow(/outside the staged artifact/);
    }
    await spilled.dispose();
    expect(fresh.every((f) => !existsSync(`${tmpdir()}/${f}`))).toBe(true);
  });

  it("says which directory could not take the spill and what to do, when TMPDIR is unusable", async () => {
    const saved = process.env.TMPDIR;
    process.env.TMPDIR = "/nonexistent/georefresh-tmp";
    try {
      const s = new StagedArtifact(10, 4096);
      await expect(s.write(bytes)).rejects.toThrow(
        /staging the artifact in \/nonexistent\/georefresh-tmp\/georefresh-staged-.* failed \(ENOENT.*TMPDIR.*--max-memory/,
      );
    } finally {
      if (saved === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = saved;
    }
  });
});
