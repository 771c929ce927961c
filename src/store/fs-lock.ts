import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { link, readdir, readFile, unlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { LockTimeoutError } from "./errors.js";

/**
 * Per-key mutual exclusion across the processes of one machine, for the filesystem store's update, overwrite
 * and delete. A lock file is born complete (written aside, then hard-linked into place, which fails if the lock
 * is taken), and names its owner by pid and process start time, so a lock left by a killed process is
 * recognised as stale and broken instead of blocking forever. Not for network filesystems shared by hosts.
 */

interface Owner {
  pid: number;
  started: string;
  token: string;
}

const SELF: Omit<Owner, "token"> = { pid: process.pid, started: processStart(process.pid) ?? "" };

/** Prefix for scratch files this process stages, so that a sweep can tell a dead process's leftovers by name. */
export const STAGING_OWNER = `${SELF.pid}-${SELF.started || "0"}-`;
const STAGED_NAME = /^(\d+)-(\d+)-[^/]+\.(part|lock)$/;

function processStart(pid: number): string | undefined {
  try {
    // Field 22 of /proc/<pid>/stat (start time in clock ticks) tells a reused pid from the original process.
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19];
  } catch {
    return undefined;
  }
}

function ownerAlive(owner: Owner): boolean {
  try {
    process.kill(owner.pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
  const started = processStart(owner.pid);
  return started === undefined || owner.started === "" || started === owner.started;
}

async function readOwner(path: string): Promise<Owner | undefined> {
  try {
    return JSON.parse(await readFile(path, "utf8")) as Owner;
  } catch {
    return undefined; // gone, or (impossible with link-in-place) unreadable
  }
}

async function tryCreate(path: string, stagingDir: string): Promise<Owner | undefined> {
  const owner: Owner = { ...SELF, token: randomUUID() };
  const staged = join(stagingDir, `${STAGING_OWNER}${owner.token}.lock`);
  await writeFile(staged, JSON.stringify(owner));
  try {
    await link(staged, path);
    return owner;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return undefined;
    throw error;
  } finally {
    await unlink(staged).catch(() => {});
  }
}

async function releaseIfOurs(path: string, owner: Owner): Promise<void> {
  const current = await readOwner(path);
  if (current?.token === owner.token) await unlink(path).catch(() => {});
}

/** Removes `path` if it still holds the dead owner we saw; a breaker lock keeps two breakers from racing. */
async function breakStale(path: string, stale: Owner, stagingDir: string): Promise<void> {
  const breakerPath = `${path}.break`;
  const breaker = await tryCreate(breakerPath, stagingDir);
  if (!breaker) {
    const other = await readOwner(breakerPath);
    // A breaker dies only if its process died within a few syscalls; clear it and let the next round retry.
    if (other && !ownerAlive(other)) await unlink(breakerPath).catch(() => {});
    return;
  }
  try {
    const current = await readOwner(path);
    if (current?.token === stale.token) await unlink(path).catch(() => {});
  } finally {
    await releaseIfOurs(breakerPath, breaker);
  }
}

export async function withKeyLock<T>(
  lockPath: string,
  stagingDir: string,
  describe: string,
  timeoutMs: number,
  body: () => Promise<T>,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let delay = 1;
  for (;;) {
    const owner = await tryCreate(lockPath, stagingDir);
    if (owner) {
      try {
        return await body();
      } finally {
        await releaseIfOurs(lockPath, owner);
      }
    }
    const holder = await readOwner(lockPath);
    if (holder && !ownerAlive(holder)) {
      await breakStale(lockPath, holder, stagingDir);
      continue;
    }
    if (Date.now() > deadline) {
      throw new LockTimeoutError(
        `${describe} is locked by process ${holder?.pid ?? "?"} for more than ${timeoutMs} ms; ` +
          `if that process is stuck, stop it (its lock is then broken automatically) and run again`,
      );
    }
    await sleep(delay * (0.5 + Math.random()));
    delay = Math.min(delay * 2, 25);
  }
}

/**
 * Clears what killed processes left in the store's private directories: locks whose holder is dead (broken the
 * same careful way a waiting writer breaks them) and staged scratch files named after a dead process. Nothing a
 * live process owns is touched. Runs once per store instance, before its first write, so a re-run after a crash
 * leaves no stale lock behind even on keys it never writes.
 */
export async function sweepDeadOwners(lockDir: string, stagingDir: string): Promise<number> {
  let removed = 0;
  for (const name of await readdir(lockDir).catch(() => [] as string[])) {
    const path = join(lockDir, name);
    const holder = await readOwner(path);
    if (!holder || ownerAlive(holder)) continue;
    if (name.endsWith(".lock")) await breakStale(path, holder, stagingDir);
    else if (name.endsWith(".lock.break")) await unlink(path).catch(() => {});
    removed++;
  }
  for (const name of await readdir(stagingDir).catch(() => [] as string[])) {
    const m = STAGED_NAME.exec(name);
    if (!m || ownerAlive({ pid: Number(m[1]), started: m[2] === "0" ? "" : (m[2] as string), token: "" })) continue;
    await unlink(join(stagingDir, name)).catch(() => {});
    removed++;
  }
  return removed;
}
