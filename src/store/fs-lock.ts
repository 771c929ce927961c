import { createHash, randomUUID } from "node:crypto";
import { readFileSync, readlinkSync } from "node:fs";
import { link, readdir, readFile, stat, unlink, utimes, writeFile } from "node:fs/promises";
import { hostname } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { LockTimeoutError } from "./errors.js";

/**
 * Per-key mutual exclusion across the processes of one machine, for the filesystem store's update, overwrite
 * and delete. A lock file is born complete (written aside, then hard-linked into place, which fails if the lock
 * is taken), and names its owner by pid and process start time, so a lock left by a killed process is
 * recognised as stale and broken instead of blocking forever.
 *
 * A pid means something only inside one pid namespace of one boot of one host: containers sharing a volume
 * each see the others' pids as absent (or as someone else's). So an owner also names its *scope* (a hash of
 * hostname, boot id and pid namespace). A lock of our own scope is judged by its pid; a lock from another scope
 * can never be proven dead, so its holder renews it (mtime) while it holds it, and it is broken only once that
 * renewal has stopped for FOREIGN_LEASE_MS. Not for network filesystems shared by hosts (README "Safety").
 */

interface Owner {
  pid: number;
  started: string;
  token: string;
  /** Absent in locks written before scopes existed: judged as our own scope. */
  scope?: string;
}

/** A foreign-scope lock whose mtime is older than this is taken as abandoned. Holders renew at a third of it. */
export const FOREIGN_LEASE_MS = 10_000;

function readOr(path: string, read: (p: string) => string): string {
  try {
    return read(path).trim();
  } catch {
    return "";
  }
}

/** Where a pid is meaningful: this host, this boot, this pid namespace. */
export const SCOPE = createHash("sha256")
  .update(
    [
      hostname(),
      readOr("/proc/sys/kernel/random/boot_id", (p) => readFileSync(p, "utf8")),
      readOr("/proc/self/ns/pid", readlinkSync),
    ].join("\n"),
  )
  .digest("hex")
  .slice(0, 12);

const SELF: Omit<Owner, "token"> = { pid: process.pid, started: processStart(process.pid) ?? "", scope: SCOPE };

/** Prefix for scratch files this process stages, so that a sweep can tell a dead process's leftovers by name. */
export const STAGING_OWNER = `${SCOPE}-${SELF.pid}-${SELF.started || "0"}-`;
const STAGED_NAME = /^([0-9a-f]{12})-(\d+)-(\d+)-[^/]+\.(part|lock)$/;

function processStart(pid: number): string | undefined {
  try {
    // Field 22 of /proc/<pid>/stat (start time in clock ticks) tells a reused pid from the original process.
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19];
  } catch {
    return undefined;
  }
}

/** Whether the owner may still hold its lock: by pid within our scope, by the lock's renewal otherwise. */
async function ownerAlive(owner: Owner, path: string): Promise<boolean> {
  if (owner.scope !== undefined && owner.scope !== SCOPE) {
    const st = await stat(path).catch(() => undefined);
    return st !== undefined && Date.now() - st.mtimeMs < FOREIGN_LEASE_MS;
  }
  return pidAlive(owner);
}

function pidAlive(owner: Pick<Owner, "pid" | "started">): boolean {
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
    if (other && !(await ownerAlive(other, breakerPath))) await unlink(breakerPath).catch(() => {});
    return;
  }
  try {
    // Judged again under the breaker: a foreign holder may have renewed since we looked.
    const current = await readOwner(path);
    if (current?.token === stale.token && !(await ownerAlive(current, path))) await unlink(path).catch(() => {});
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
      // Renewal is what tells a waiter in another pid namespace or container that we are alive.
      const renew = setInterval(() => {
        const now = new Date();
        utimes(lockPath, now, now).catch(() => {});
      }, FOREIGN_LEASE_MS / 3);
      renew.unref();
      try {
        return await body();
      } finally {
        clearInterval(renew);
        await releaseIfOurs(lockPath, owner);
      }
    }
    const holder = await readOwner(lockPath);
    if (holder && !(await ownerAlive(holder, lockPath))) {
      await breakStale(lockPath, holder, stagingDir);
      continue;
    }
    if (Date.now() > deadline) {
      throw new LockTimeoutError(
        `${describe} is locked by process ${holder?.pid ?? "?"}${holder?.scope && holder.scope !== SCOPE ? " of another container, pid namespace or host" : ""} for more than ${timeoutMs} ms; ` +
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
    if (!holder || (await ownerAlive(holder, path))) continue;
    if (name.endsWith(".lock")) await breakStale(path, holder, stagingDir);
    else if (name.endsWith(".lock.break")) await unlink(path).catch(() => {});
    removed++;
  }
  for (const name of await readdir(stagingDir).catch(() => [] as string[])) {
    const m = STAGED_NAME.exec(name);
    if (!m) continue;
    const path = join(stagingDir, name);
    // Another scope's staged file is left for an hour: long enough for any write in progress there to finish.
    const age = Date.now() - ((await stat(path).catch(() => undefined))?.mtimeMs ?? Date.now());
    const dead =
      m[1] === SCOPE
        ? !pidAlive({ pid: Number(m[2]), started: m[3] === "0" ? "" : (m[3] as string) })
        : age > 3_600_000;
    if (!dead) continue;
    await unlink(path).catch(() => {});
    removed++;
  }
  return removed;
}
