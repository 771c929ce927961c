/**
 * A separate OS process that refreshes partitions on command (spawned by ProcessPool), for cross-process races.
 *   argv: <store url> <worker id>
 *   {"tag":t,"input":path,"partition":{…}} → {"tag":t,"outcome":…,"sha256":…,"message":…}
 */
import { createInterface } from "node:readline";
import { refreshPartition } from "../../src/protocol/refresh.js";
import { openStore } from "../../src/store/open.js";
import { pointsTask, VERSIONS } from "./points-task.js";

const [url, worker] = process.argv.slice(2);
if (!url || !worker) throw new Error("usage: refresh-worker <store url> <worker id>");
const store = openStore(url);
process.stdout.write(`${JSON.stringify({ ready: worker })}\n`);
for await (const line of createInterface({ input: process.stdin })) {
  const cmd = JSON.parse(line) as {
    tag: string;
    input: string;
    partition: { dataset: string; region: string; date: string };
  };
  // compute waits a little, so every racer has read the manifest before anyone can promote: a true race.
  const r = await refreshPartition({
    store,
    task: pointsTask(cmd.input, { delayMs: 300 }),
    partition: cmd.partition,
    versions: VERSIONS,
  });
  process.stdout.write(
    `${JSON.stringify({ tag: cmd.tag, outcome: r.outcome, sha256: r.sha256 ?? null, message: r.message })}\n`,
  );
}
await store.close();
