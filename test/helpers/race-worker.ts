/**
 * A separate OS process that races other processes on one store (spawned by test/helpers/race.ts).
 * Speaks JSON lines: reads commands on stdin, answers on stdout.
 *   argv: <store url> <worker id>
 *   {"op":"create","key":k,"tag":t,"count":n} → n concurrent creates of k → {"tag":t,"results":[{"body","won","error"}]}
 *   {"op":"increment","key":k,"tag":t,"count":n} → n get→update increments → {"tag":t,"done":n,"conflicts":c}
 */
import { createInterface } from "node:readline";
import { openStore } from "../../src/store/open.js";
import { incrementCounter, raceCreates } from "./race-ops.js";

const [url, worker] = process.argv.slice(2);
if (!url || !worker) throw new Error("usage: race-worker <store url> <worker id>");
const store = openStore(url);

// Warm up (module load, connection) before saying ready, so rounds start together.
await store.head("warm-up").catch(() => undefined);
process.stdout.write(`${JSON.stringify({ ready: worker })}\n`);

for await (const line of createInterface({ input: process.stdin })) {
  const cmd = JSON.parse(line) as { op: string; key: string; tag: string; count: number };
  if (cmd.op === "create") {
    const results = await raceCreates(store, cmd.key, `${worker}`, cmd.count);
    process.stdout.write(`${JSON.stringify({ tag: cmd.tag, results })}\n`);
  } else if (cmd.op === "increment") {
    let conflicts = 0;
    for (let i = 0; i < cmd.count; i++) conflicts += await incrementCounter(store, cmd.key, `${worker}-${i}`);
    process.stdout.write(`${JSON.stringify({ tag: cmd.tag, done: cmd.count, conflicts })}\n`);
  }
}
await store.close();
