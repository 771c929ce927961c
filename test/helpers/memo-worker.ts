/** One process calling a memoized "service" that appends a line to a log per real call: for the process race. */
import { appendFileSync } from "node:fs";
import { memoized } from "../../src/protocol/memo.js";
import { openStore } from "../../src/store/open.js";

const [storeUrl, log, tag] = process.argv.slice(2) as [string, string, string];
const store = openStore(storeUrl);
const answer = await memoized(store, "race", "isochrone", { site: tag, minutes: 15 }, async () => {
  appendFileSync(log, `${process.pid}\n`);
  await new Promise((r) => setTimeout(r, 300)); // a slow service: the twins arrive while it works
  return {
    polygon: [
      [0, 0],
      [1, 0],
      [0, 1],
      [0, 0],
    ],
    by: process.pid,
  };
});
process.stdout.write(JSON.stringify(answer));
