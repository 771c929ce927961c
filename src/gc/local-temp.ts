import { lstat, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";

/**
 * What a killed run leaves on its own machine: staged artifacts (`georefresh-staged-<pid>-…`) and folders of
 * input copies (`georefresh-inputs-<pid>-…`) in TMPDIR. `gc` sweeps ours, recognised by name, older than the
 * floor, whose process is gone; never a link, never another program's file.
 */
const OURS = /^georefresh-(?:inputs|staged)-(\d+)-/;

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM"; // someone else's live process
  }
};

export async function sweepLocalTemp(opts: {
  olderThanMs: number;
  apply: boolean;
  now?: Date;
  dir?: string;
}): Promise<string[]> {
  const dir = opts.dir ?? tmpdir();
  const floor = (opts.now ?? new Date()).getTime() - opts.olderThanMs;
  const found: string[] = [];
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return found;
  }
  for (const name of names.sort()) {
    const pid = OURS.exec(name)?.[1];
    if (!pid || Number(pid) === process.pid) continue;
    const path = join(dir, name);
    const st = await lstat(path).catch(() => undefined);
    if (!st || st.isSymbolicLink() || (!st.isFile() && !st.isDirectory())) continue;
    if (st.mtimeMs >= floor || alive(Number(pid))) continue;
    found.push(path);
    if (opts.apply) await rm(path, { recursive: true, force: true }).catch(() => undefined);
  }
  return found;
}
