/**
 * Takes one fs key lock, says "locked <ms since epoch>" on stdout, holds it for the given time, releases it and
 * says "released <ms>". Run inside another pid namespace by test/store/fs-pidns.test.ts.
 *   argv: <lock dir> <hold ms>
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { withKeyLock } from "../../src/store/fs-lock.js";

const [dir, hold] = process.argv.slice(2);
if (!dir || !hold) throw new Error("usage: lock-holder <dir> <hold ms>");
mkdirSync(join(dir, "staging"), { recursive: true });
await withKeyLock(join(dir, "key.lock"), join(dir, "staging"), "the test key", 60_000, async () => {
  process.stdout.write(`locked ${Date.now()}\n`);
  await new Promise((r) => setTimeout(r, Number(hold)));
  process.stdout.write(`released ${Date.now()}\n`);
});
