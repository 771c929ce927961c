import { createHash, randomUUID } from "node:crypto";
import { open, unlink } from "node:fs/promises";
import type { FileHandle } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { StreamBody } from "../store/types.js";
import { GeorefreshError } from "../errors.js";
import type { ErrorCode } from "../errors.js";

export class StagingError extends GeorefreshError {
  override readonly code: ErrorCode = "Staging";
}

/**
 * An artifact's bytes on their way to the store (docs/large-partitions.md): written in order by the writer (or by
 * the read-back of a reused artifact), kept in memory up to `memoryBytes`, spilled to a temp file beyond that.
 * Readable as a StreamBody (for put) and by range; the bytes never depend on where they were kept.
 */
export class StagedArtifact implements StreamBody {
  size = 0;
  private digest = "";
  private readonly hash = createHash("sha256");
  private parts: Uint8Array[] = [];
  private file: { path: string; handle: FileHandle } | undefined;

  constructor(
    private readonly memoryBytes: number,
    private readonly chunkBytes: number,
  ) {}

  /** Where the bytes are kept (for tests and messages). */
  get spilled(): boolean {
    return this.file !== undefined;
  }

  get sha256(): string {
    if (!this.digest) throw new Error("the staged artifact is still being written");
    return this.digest;
  }

  async write(bytes: Uint8Array): Promise<void> {
    if (this.digest) throw new Error("the staged artifact is already complete");
    this.hash.update(bytes);
    this.size += bytes.byteLength;
    if (!this.file && this.size <= this.memoryBytes) {
      this.parts.push(bytes);
      return;
    }
    if (!this.file) await this.spill();
    await this.append(bytes);
  }

  /** No more bytes: fixes the sha256. */
  end(): this {
    this.digest = this.hash.digest("hex");
    return this;
  }

  async *chunks(): AsyncIterable<Uint8Array> {
    if (!this.file) {
      yield* this.parts;
      return;
    }
    for (let at = 0; at < this.size; at += this.chunkBytes)
      yield await this.read(at, Math.min(this.chunkBytes, this.size - at));
  }

  async read(offset: number, length: number): Promise<Uint8Array> {
    if (offset < 0 || length < 0 || offset + length > this.size)
      throw new RangeError(`bytes ${offset}+${length} are outside the staged artifact's ${this.size}`);
    if (this.file) {
      const out = new Uint8Array(length);
      for (let got = 0; got < length;) {
        const { bytesRead } = await this.file.handle.read(out, got, length - got, offset + got);
        if (bytesRead === 0) throw new Error(`${this.file.path} ended early`);
        got += bytesRead;
      }
      return out;
    }
    const out = new Uint8Array(length);
    let at = 0;
    for (const p of this.parts) {
      const lo = Math.max(offset, at);
      const hi = Math.min(offset + length, at + p.byteLength);
      if (lo < hi) out.set(p.subarray(lo - at, hi - at), lo - offset);
      at += p.byteLength;
      if (at >= offset + length) break;
    }
    return out;
  }

  /** The whole artifact as one buffer (small artifacts, tests). */
  async bytes(): Promise<Uint8Array> {
    return this.read(0, this.size);
  }

  async dispose(): Promise<void> {
    this.parts = [];
    const file = this.file;
    this.file = undefined;
    if (file) {
      await file.handle.close().catch(() => undefined);
      await unlink(file.path).catch(() => undefined);
    }
  }

  /** Past the memory limit: everything so far goes to a temp file (TMPDIR), and so does the rest. */
  private async spill(): Promise<void> {
    // The pid in the name lets gc tell a killed run's file from a live one's (local-temp.ts).
    const path = join(tmpdir(), `georefresh-staged-${process.pid}-${randomUUID()}.parquet`);
    const handle = await open(path, "wx+", 0o600).catch((e: unknown) => Promise.reject(stagingError(e, path)));
    this.file = { path, handle };
    for (const p of this.parts) await this.append(p);
    this.parts = [];
  }

  private async append(bytes: Uint8Array): Promise<void> {
    const file = this.file as { path: string; handle: FileHandle };
    await file.handle.writeFile(bytes).catch((e: unknown) => Promise.reject(stagingError(e, file.path)));
  }
}

/** A full or unwritable TMPDIR, said so: what failed, where, and the two ways out. */
function stagingError(error: unknown, path: string): StagingError {
  const code = (error as NodeJS.ErrnoException).code ?? "error";
  return new StagingError(
    `staging the artifact in ${path} failed (${code}: ${(error as Error).message}); free space in TMPDIR (${tmpdir()}), point TMPDIR at a larger disk, or raise --max-memory to keep more in memory. Nothing was published`,
  );
}
