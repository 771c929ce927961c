/**
 * A separate OS process that commits dataset snapshots in a loop until told to stop (a line on stdin), for
 * cross-process committer races. argv: <store url> <dataset>. Prints {"moved":n,"attempts":m} when done.
 */
import { createInterface } from "node:readline";
import { commitSnapshot } from "../../src/manifest/snapshot-commit.js";
import { openStore } from "../../src/store/open.js";

const [url, dataset] = process.argv.slice(2);
if (!url || !dataset) throw new Error("usage: commit-worker <store url> <dataset>");
const store = openStore(url);
let stop = false;
createInterface({ input: process.stdin }).on("line", () => (stop = true));
let moved = 0;
let attempts = 0;
process.stdout.write(`${JSON.stringify({ ready: true })}\n`);
while (!stop) {
  attempts++;
  if ((await commitSnapshot(store, dataset)).moved) moved++;
  await new Promise((r) => setTimeout(r, 5));
}
process.stdout.write(`${JSON.stringify({ moved, attempts })}\n`);
process.exit(0);
