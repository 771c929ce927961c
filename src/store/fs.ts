import { createHash, randomUUID } from "node:crypto";
import type { BigIntStats } from "node:fs";
import { link, lstat, mkdir, open, readdir, realpath, rename, unlink } from "node:fs/promises";
import type { FileHandle } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { sha256Hex } from "./digest.js";
import {
  AccessDeniedError,
  AlreadyExistsError,
  InvalidKeyError,
  isStoreError,
  NotFoundError,
  PreconditionFailedError,
  StoreError,
  UnavailableError,
} from "./errors.js";
import { STAGING_OWNER, sweepDeadOwners, withKeyLock } from "./fs-lock.js";
import { checkParent, openRegular, refusal, specialKind } from "./fs-paths.js";
import { compareKeys, validateKey, validatePrefix } from "./keys.js";
import { checkRange } from "./range.js";
import type {
  GetOptions,
  GetResult,
  ListEntry,
  ListOptions,
  ObjectMeta,
  ObjectStore,
  PutBody,
  PutOptions,
  PutResult,
} from "./types.js";
import { isStreamBody } from "./types.js";

/** Staging files and key locks live here, inside the root so that link/rename never cross filesystems. */
export const FS_INTERNAL_DIR = ".georefresh";

export interface FsStoreOptions {
  /** How long update/overwrite/delete wait for a key lock held by a live process. */
  lockTimeoutMs?: number;
}

/**
 * The embedded default: objects are plain files under a root directory (readable by DuckDB or GDAL as they
 * are). Writes are staged in .georefresh/staging, fsynced, then linked (create) or renamed (overwrite, update)
 * into place, so a reader sees the old file or the new one, never part of one, and a killed writer leaves only
 * a staging file that no listing shows.
 */
export class FsStore implements ObjectStore {
  readonly url: string;
  readonly root: string;
  private readonly stagingDir: string;
  private readonly lockDir: string;
  private readonly lockTimeoutMs: number;
  private ready: Promise<void> | undefined;
  private resolvedRoot: Promise<string> | undefined;
  private readonly realDirs = new Set<string>();

  constructor(root: string, options: FsStoreOptions = {}) {
    this.root = resolve(root);
    this.url = pathToFileURL(this.root).href;
    this.stagingDir = join(this.root, FS_INTERNAL_DIR, "staging");
    this.lockDir = join(this.root, FS_INTERNAL_DIR, "locks");
    this.lockTimeoutMs = options.lockTimeoutMs ?? 30_000;
  }

  /** The version a put of these bytes gets: their sha256 (PredictsVersions). */
  versionFor(body: Uint8Array): string {
    return sha256Hex(body);
  }

  locate(key: string): string {
    return this.pathOf(key);
  }

  async head(key: string): Promise<ObjectMeta> {
    // One stat answers a HEAD whose version is cached; a miss opens the file and hashes it.
    const path = this.pathOf(key);
    let st: BigIntStats | undefined;
    try {
      st = await lstat(path, { bigint: true });
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== "ENOENT" && code !== "ENOTDIR") throw this.fsError(error, key);
    }
    const cached = st?.isFile() ? versionCache.get(cacheKey(st)) : undefined;
    if (st && cached) {
      await this.checkParent(path, key);
      return this.meta(key, st, cached);
    }
    const { handle, st: opened } = await this.openForRead(key);
    try {
      return this.meta(key, opened, await versionOf(handle, opened));
    } finally {
      await handle.close();
    }
  }

  async exists(key: string): Promise<boolean> {
    const path = this.pathOf(key);
    let st;
    try {
      st = await lstat(path);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === "ENOENT" || code === "ENOTDIR") return false;
      throw this.fsError(error, key);
    }
    const kind = specialKind(st);
    if (kind) throw refusal(path, kind, key);
    await this.checkParent(path, key);
    return st.isFile();
  }

  async get(key: string, options?: GetOptions): Promise<GetResult> {
    const { handle, st } = await this.openForRead(key);
    try {
      const size = Number(st.size);
      if (!options?.range) {
        const body = await readExactly(handle, 0, size);
        const version = sha256Hex(body);
        rememberVersion(st, version);
        return { meta: this.meta(key, st, version), body };
      }
      const { start, end } = checkRange(options.range, size, key);
      const body = await readExactly(handle, start, end - start);
      return { meta: this.meta(key, st, await versionOf(handle, st)), body };
    } finally {
      await handle.close();
    }
  }

  async put(key: string, body: PutBody, options?: PutOptions): Promise<PutResult> {
    const path = this.pathOf(key);
    await this.prepare();
    const mode = options?.mode ?? "overwrite";
    const { staged, version, ino } = await this.stage(body);
    let renamed = false;
    try {
      if (mode === "create") {
        await this.intoPlace(key, path, () => link(staged, path));
      } else {
        await this.locked(key, async () => {
          if (typeof mode === "object") await this.expectVersion(key, path, mode.update);
          await this.intoPlace(key, path, () => rename(staged, path));
          renamed = true;
        });
      }
      await syncDir(dirname(path));
    } finally {
      if (!renamed) await unlink(staged).catch(() => {});
    }
    // Our inode still there: its version is known, so a ranged read of a large artifact need not hash it again.
    const st = await lstat(path, { bigint: true }).catch(() => undefined);
    if (st?.ino === ino) rememberVersion(st, version);
    return { version };
  }

  async delete(key: string): Promise<void> {
    const path = this.pathOf(key);
    await this.prepare();
    await this.locked(key, async () => {
      try {
        const kind = specialKind(await lstat(path));
        if (kind) throw refusal(path, kind, key);
        await this.checkParent(path, key);
        await unlink(path);
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code !== "ENOENT" && code !== "ENOTDIR") throw this.fsError(error, key);
      }
    });
  }

  async *list(prefix: string, options?: ListOptions): AsyncIterable<ListEntry> {
    validatePrefix(prefix);
    const slash = prefix.lastIndexOf("/");
    const baseKey = slash < 0 ? "" : prefix.slice(0, slash);
    // The walk reads directories without following links; only where it starts must be checked by path.
    if (baseKey !== "") await this.checkParent(join(this.root, baseKey, "x"), baseKey);
    for await (const key of this.walk(baseKey, prefix, options?.startAfter)) {
      try {
        const st = await lstat(join(this.root, key));
        yield { key, size: st.size, lastModified: st.mtime };
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw this.fsError(error, key);
      }
    }
  }

  async close(): Promise<void> {}

  /**
   * Keys under a directory in UTF-8 byte order, streamed: entries are sorted with each directory as "<name>/",
   * which is how all its keys begin, so a depth-first walk yields them in order without holding the listing.
   * Directories that cannot hold a key matching `prefix`, or only keys at or before `startAfter`, are skipped.
   */
  private async *walk(dirKey: string, prefix: string, startAfter: string | undefined): AsyncGenerator<string> {
    let entries;
    try {
      entries = await readdir(dirKey === "" ? this.root : join(this.root, dirKey), { withFileTypes: true });
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === "ENOENT" || code === "ENOTDIR") return;
      throw this.fsError(error, dirKey);
    }
    const items: { key: string; order: string; dir: boolean; special?: string }[] = [];
    for (const entry of entries) {
      if (dirKey === "" && entry.name === FS_INTERNAL_DIR) continue;
      const key = dirKey === "" ? entry.name : `${dirKey}/${entry.name}`;
      if (entry.isDirectory()) items.push({ key, order: `${key}/`, dir: true });
      else items.push({ key, order: key, dir: false, ...(entry.isFile() ? {} : { special: specialKind(entry) }) });
    }
    items.sort((a, b) => compareKeys(a.order, b.order));
    for (const item of items) {
      if (item.dir) {
        const below = item.order;
        if (!below.startsWith(prefix) && !prefix.startsWith(below)) continue;
        if (startAfter !== undefined && compareKeys(startAfter, below) > 0 && !startAfter.startsWith(below)) continue;
        yield* this.walk(item.key, prefix, startAfter);
      } else if (item.key.startsWith(prefix) && (startAfter === undefined || compareKeys(item.key, startAfter) > 0)) {
        // Never skipped silently: a listing that left out a symlinked manifest directory once made gc delete a dataset.
        if (item.special) throw refusal(join(this.root, item.key), item.special, item.key);
        yield item.key;
      } else if (item.special && prefix.startsWith(`${item.key}/`)) {
        throw refusal(join(this.root, item.key), item.special, item.key);
      }
    }
  }

  /** The root as the kernel resolves it (it may itself be a symlink, e.g. ./data on a bigger disk): what parents must resolve under. */
  private async realRoot(): Promise<string> {
    this.resolvedRoot ??= realpath(this.root).catch((error: unknown) => {
      this.resolvedRoot = undefined;
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return this.root;
      throw this.fsError(error, this.root);
    });
    return this.resolvedRoot;
  }

  /**
   * Directories already proven real are remembered for the life of this store object (a no-op backfill would
   * otherwise resolve every manifest's and artifact's directory again). A link swapped in while a process runs
   * is outside what this check is for: links a user left in the store before the command started.
   */
  private async checkParent(path: string, key: string): Promise<void> {
    const dir = dirname(path);
    if (this.realDirs.has(dir)) return;
    const real = await checkParent(this.root, await this.realRoot(), path, key).catch((error: unknown) => {
      throw isStoreError(error) ? error : this.fsError(error, key);
    });
    if (!real) return;
    if (this.realDirs.size >= 10_000) this.realDirs.clear();
    this.realDirs.add(dir);
  }

  private pathOf(key: string): string {
    validateKey(key);
    if (key === FS_INTERNAL_DIR || key.startsWith(`${FS_INTERNAL_DIR}/`)) {
      throw new InvalidKeyError(
        `invalid key ${JSON.stringify(key)}: '${FS_INTERNAL_DIR}/' is reserved by the filesystem store`,
        { key },
      );
    }
    return join(this.root, ...key.split("/"));
  }

  private prepare(): Promise<void> {
    this.ready ??= Promise.all([
      mkdir(this.stagingDir, { recursive: true }),
      mkdir(this.lockDir, { recursive: true }),
    ]).then(
      async () => {
        await sweepDeadOwners(this.lockDir, this.stagingDir);
      },
      (error: unknown) => {
        this.ready = undefined;
        throw this.fsError(error, this.root);
      },
    );
    return this.ready;
  }

  /** Writes the body to a fresh staging file, hashing what it writes (a StreamBody's own sha256 is not trusted). */
  private async stage(body: PutBody): Promise<{ staged: string; version: string; ino: bigint }> {
    const staged = join(this.stagingDir, `${STAGING_OWNER}${randomUUID()}.part`);
    const handle = await open(staged, "wx");
    try {
      const { ino } = await handle.stat({ bigint: true });
      if (!isStreamBody(body)) {
        await handle.writeFile(body);
        await handle.sync();
        return { staged, version: sha256Hex(body), ino };
      }
      const hash = createHash("sha256");
      let size = 0;
      for await (const chunk of body.chunks()) {
        hash.update(chunk);
        size += chunk.byteLength;
        await handle.writeFile(chunk);
      }
      if (size !== body.size) throw new Error(`the body gave ${size} bytes, not the ${body.size} it announced`);
      await handle.sync();
      return { staged, version: hash.digest("hex"), ino };
    } catch (error) {
      await unlink(staged).catch(() => {});
      throw error;
    } finally {
      await handle.close();
    }
  }

  /** Runs a link/rename into `path`, creating parent directories; maps file/directory clashes to clear errors. */
  private async intoPlace(key: string, path: string, move: () => Promise<void>): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      try {
        await this.checkParent(path, key);
        await move();
        return;
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code === "EEXIST") throw new AlreadyExistsError(`${this.locate(key)} already exists`, { key });
        if (code === "ENOENT" && attempt < 3) {
          await mkdir(dirname(path), { recursive: true }).catch((e: unknown) => {
            throw this.fsError(e, key);
          });
          continue;
        }
        throw this.fsError(error, key);
      }
    }
  }

  private async expectVersion(key: string, path: string, expected: string): Promise<void> {
    let handle: FileHandle;
    try {
      ({ handle } = await openRegular(path, key));
      await this.checkParent(path, key);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === "ENOENT" || code === "ENOTDIR") {
        throw new PreconditionFailedError(`${this.locate(key)} does not exist (expected version ${expected})`, { key });
      }
      throw this.fsError(error, key);
    }
    try {
      const st = await handle.stat({ bigint: true });
      // Hash the bytes afresh under the lock: the cache is keyed by stat fields and CAS must not trust them.
      const current = sha256Hex(await readExactly(handle, 0, Number(st.size)));
      if (current !== expected) {
        throw new PreconditionFailedError(
          `${this.locate(key)} changed: expected version ${expected}, found ${current}`,
          { key },
        );
      }
    } finally {
      await handle.close();
    }
  }

  private locked<T>(key: string, body: () => Promise<T>): Promise<T> {
    const lockPath = join(this.lockDir, `${createHash("sha256").update(key).digest("hex")}.lock`);
    return withKeyLock(lockPath, this.stagingDir, this.locate(key), this.lockTimeoutMs, body);
  }

  private async openForRead(key: string): Promise<{ handle: FileHandle; st: BigIntStats }> {
    const path = this.pathOf(key);
    let handle: FileHandle;
    let st: BigIntStats;
    try {
      ({ handle, st } = await openRegular(path, key));
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === "ENOENT" || code === "ENOTDIR") throw new NotFoundError(`${path} not found`, { key });
      throw this.fsError(error, key);
    }
    try {
      await this.checkParent(path, key);
    } catch (error) {
      await handle.close();
      throw error;
    }
    if (!st.isFile()) {
      await handle.close();
      throw new NotFoundError(`${path} not found (it is a directory of other objects)`, { key });
    }
    return { handle, st };
  }

  private meta(key: string, st: BigIntStats, version: string): ObjectMeta {
    return { key, size: Number(st.size), version, lastModified: new Date(Number(st.mtimeMs)) };
  }

  private fsError(error: unknown, key: string): StoreError {
    if (isStoreError(error)) return error;
    const e = error as NodeJS.ErrnoException;
    const where = key.startsWith("/") ? key : this.locate(key);
    switch (e.code) {
      case "ENAMETOOLONG":
        return new InvalidKeyError(
          `invalid key ${JSON.stringify(key)}: a path segment is longer than this filesystem allows (255 bytes)`,
          { key, cause: e },
        );
      case "EISDIR":
      case "ENOTDIR":
      case "EEXIST":
        return new InvalidKeyError(
          `cannot store ${where}: on the filesystem store a key cannot be both an object and a prefix of other keys`,
          { key, cause: e },
        );
      case "EACCES":
      case "EPERM":
      case "EROFS":
        return new AccessDeniedError(
          `no permission to write ${where} (${e.code}); check the directory's owner and mode`,
          { key, cause: e },
        );
      case "ENOSPC":
        return new UnavailableError(`no space left on the device holding ${where}`, { key, cause: e });
      default:
        return new StoreError(`filesystem error on ${where}: ${e.message}`, { key, cause: e });
    }
  }
}

async function readExactly(handle: FileHandle, position: number, length: number): Promise<Uint8Array> {
  const body = new Uint8Array(length);
  let done = 0;
  while (done < length) {
    const { bytesRead } = await handle.read(body, done, length - done, position + done);
    if (bytesRead === 0) break; // cannot happen on a file we never modify in place
    done += bytesRead;
  }
  return done === length ? body : body.subarray(0, done);
}

async function syncDir(path: string): Promise<void> {
  const handle = await open(path, "r");
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/**
 * Versions are content hashes; re-hashing a large artifact on every HEAD would be slow, so hashes are cached
 * per inode and change time. Our writes always make a new inode (link or rename), so a cached entry can only go
 * stale if another program edits a file in place within the same nanosecond; CAS re-hashes regardless.
 */
const versionCache = new Map<string, string>();
const VERSION_CACHE_LIMIT = 10_000;

function cacheKey(st: BigIntStats): string {
  return `${st.dev}:${st.ino}:${st.size}:${st.mtimeNs}:${st.ctimeNs}`;
}

function rememberVersion(st: BigIntStats, version: string): void {
  if (versionCache.size >= VERSION_CACHE_LIMIT) versionCache.delete(versionCache.keys().next().value as string);
  versionCache.set(cacheKey(st), version);
}

async function versionOf(handle: FileHandle, st: BigIntStats): Promise<string> {
  const cached = versionCache.get(cacheKey(st));
  if (cached) return cached;
  const hash = createHash("sha256");
  const chunk = new Uint8Array(1 << 20);
  for (let position = 0; ;) {
    const { bytesRead } = await handle.read(chunk, 0, chunk.byteLength, position);
    if (bytesRead === 0) break;
    hash.update(chunk.subarray(0, bytesRead));
    position += bytesRead;
  }
  const version = hash.digest("hex");
  rememberVersion(st, version);
  return version;
}
