import { spawn } from "node:child_process";
import type { ChildProcessWithoutNullStreams } from "node:child_process";
import { createInterface } from "node:readline";
import type { Interface } from "node:readline";
import { fileURLToPath } from "node:url";

const WORKER = fileURLToPath(new URL("./race-worker.ts", import.meta.url));

/** A pool of separate OS processes that each open the same store, driven round by round. */
export class ProcessPool {
  private constructor(
    private readonly children: ChildProcessWithoutNullStreams[],
    private readonly lines: AsyncIterator<string>[],
    private readonly readers: Interface[],
  ) {}

  /** `worker` is a script speaking the JSON-lines protocol; it gets the store URL and its own id as arguments. */
  /** `launcher(i)` may name a command to run process i under (e.g. `unshare --pid --fork --mount-proc`). */
  static async start(
    url: string,
    size: number,
    env: Record<string, string>,
    worker: string = WORKER,
    launcher: (i: number) => string[] = () => [],
  ): Promise<ProcessPool> {
    const children = Array.from({ length: size }, (_, i) => {
      const argv = [...launcher(i), process.execPath, "--import", "tsx", worker, url, `p${i}`];
      return spawn(argv[0] as string, argv.slice(1), { env: { ...process.env, ...env }, stdio: "pipe" });
    });
    const stderr: string[] = [];
    for (const child of children) child.stderr.on("data", (d: Buffer) => stderr.push(d.toString()));
    const readers = children.map((c) => createInterface({ input: c.stdout }));
    const lines = readers.map((r) => r[Symbol.asyncIterator]());
    const pool = new ProcessPool(children, lines, readers);
    try {
      await Promise.all(lines.map((it) => pool.next(it, "ready")));
    } catch (error) {
      pool.kill();
      throw new Error(`race workers failed to start: ${(error as Error).message}\n${stderr.join("")}`);
    }
    return pool;
  }

  /** Sends one command to the first `processes` processes at once and collects their answers. */
  async round<T>(command: Record<string, unknown>, processes = this.children.length): Promise<T[]> {
    return this.roundEach<T>(() => command, processes);
  }

  /** Like round(), with a command per process (same tag for all). */
  async roundEach<T>(
    command: (index: number) => Record<string, unknown>,
    processes = this.children.length,
  ): Promise<T[]> {
    const commands = this.children.slice(0, processes).map((_, i) => command(i));
    commands.forEach((c, i) => this.children[i]?.stdin.write(`${JSON.stringify(c)}\n`));
    return Promise.all(
      this.lines.slice(0, processes).map((it, i) => this.next(it, String(commands[i]?.tag))),
    ) as Promise<T[]>;
  }

  async stop(): Promise<void> {
    for (const child of this.children) child.stdin.end();
    await Promise.all(
      this.children.map((c) => (c.exitCode !== null ? undefined : new Promise((r) => c.once("exit", r)))),
    );
    for (const r of this.readers) r.close();
  }

  kill(): void {
    for (const child of this.children) child.kill("SIGKILL");
  }

  private async next(it: AsyncIterator<string>, expect: string): Promise<unknown> {
    const { value, done } = await it.next();
    if (done) throw new Error(`a race worker exited while we waited for '${expect}'`);
    const msg = JSON.parse(value) as Record<string, unknown>;
    if (msg.ready === undefined && msg.tag !== expect)
      throw new Error(`race worker answered ${value}, expected tag ${expect}`);
    return msg;
  }
}
