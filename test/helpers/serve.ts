/** What the serve tests share: `read`'s features (the reference a server is held to), and a started server. */
import type { ChildProcessWithoutNullStreams } from "node:child_process";
import { expect } from "vitest";
import { runCliHere, spawnCli } from "./cli.js";

export type Feature = { properties: Record<string, unknown>; geometry: unknown };

/** `georefresh read <dataset> --format ndjson ARGS`, as a user would ask: its features. */
export async function readFeatures(dataset: string, config: string, args: string[]): Promise<Feature[]> {
  const r = await runCliHere(["read", dataset, "--config", config, "--format", "ndjson", ...args]);
  expect(r.code, r.stderr).toBe(0);
  return r.stdout
    .trim()
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Feature);
}

/** `georefresh serve --config CONFIG --port 0 ARGS` as a process, once it says where it listens. */
export function startServe(
  config: string,
  args: string[] = [],
): Promise<{ child: ChildProcessWithoutNullStreams; base: string }> {
  const child = spawnCli(["serve", "--config", config, "--port", "0", ...args]);
  return new Promise((ok, fail) => {
    let said = "";
    child.stdout.on("data", (d: Buffer) => {
      said += d.toString();
      const m = /at (http:\/\/127\.0\.0\.1:\d+)\//.exec(said);
      if (m) ok({ child, base: m[1] as string });
    });
    child.once("exit", (code) => fail(new Error(`serve exited (${code}) before listening`)));
  });
}
