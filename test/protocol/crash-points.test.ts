/**
 * Crash-point enumeration: for every store call k of a refresh, kill the run at k (before the call, or after a
 * write landed but before its answer), check that readers see nothing broken, re-run cleanly, and compare the
 * final store object for object with a store that saw only clean runs.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { refreshPartition } from "../../src/protocol/refresh.js";
import type { ObjectStore } from "../../src/store/types.js";
import { FaultyStore } from "../helpers/faulty-store.js";
import { manifestsConsistent, visible } from "../helpers/visible.js";
import { dateTwo, parcels, parcelsTask, writeFeed } from "../helpers/parcels-task.js";
import { pointsTask, VERSIONS, writePoints } from "../helpers/points-task.js";
import { describeEachStore } from "../store/harness/index.js";
import type { StoreHarness } from "../store/harness/index.js";

const partition = { dataset: "crash", region: "north", date: "2026-01-01" };
const weld = { dataset: "crash-keyed", region: "weld" };

interface Scenario {
  name: string;
  before(store: ObjectStore): Promise<unknown>;
  underTest(store: ObjectStore): ReturnType<typeof refreshPartition>;
}

function suite(h: StoreHarness): void {
  // A remote store samples every third call: each crash point is a whole run over the network.
  const every = h.capabilities.remote ? 3 : 1;
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "georefresh-crash-"));
    writePoints(join(dir, "v1.json"), 12);
    writePoints(join(dir, "v2.json"), 14);
    writeFeed(dir, "weld", "2026-03-01", parcels(40));
    writeFeed(dir, "weld", "2026-03-02", dateTwo(parcels(40)));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const scenarios: Scenario[] = [
    {
      // A first version exists; the run under test promotes a second one (artifact, outbox, If-Match).
      name: "a second version",
      before: (store) =>
        refreshPartition({ store, task: pointsTask(join(dir, "v1.json")), partition, versions: VERSIONS }),
      underTest: (store) =>
        refreshPartition({ store, task: pointsTask(join(dir, "v2.json")), partition, versions: VERSIONS }),
    },
    {
      // A keyed dataset announcing changes: the run under test adds a changelog and a change-set event.
      name: "a keyed date after another, with its changelog and change events",
      before: (store) =>
        refreshPartition({
          store,
          task: parcelsTask(dir, { events: "changes" }),
          partition: { ...weld, date: "2026-03-01" },
          versions: {},
        }),
      underTest: (store) =>
        refreshPartition({
          store,
          task: parcelsTask(dir, { events: "changes" }),
          partition: { ...weld, date: "2026-03-02" },
          versions: {},
        }),
    },
  ];

  it.each(scenarios)(
    `recovers to the clean result from ${every > 1 ? `every ${every}rd` : "every"} crash point ($name), and readers never see a broken state`,
    async ({ before, underTest }) => {
      const ref = await h.open();
      await before(ref.store);
      const counter = new FaultyStore(ref.store);
      expect((await underTest(counter)).outcome).toBe("promoted");
      const calls = counter.calls;
      const expected = await visible(ref.store);
      await ref.dispose();
      expect(calls).toBeGreaterThan(8);

      let exercised = 0;
      for (const mode of ["before", "after-landed"] as const) {
        for (let k = 1; k <= calls; k += every) {
          const fx = await h.open();
          try {
            await before(fx.store);
            const crashed = await underTest(new FaultyStore(fx.store, k, mode));
            // A crash during the last step (removing the temp key) comes after the promotion: the work is done.
            expect(["failed", "promoted"], `crash ${mode} call ${k}: ${crashed.message}`).toContain(crashed.outcome);
            await manifestsConsistent(fx.store);
            const rerun = await underTest(fx.store);
            expect(
              ["promoted", "reconciled", "unchanged"],
              `re-run after crash ${mode} call ${k}: ${rerun.message}`,
            ).toContain(rerun.outcome);
            expect(await visible(fx.store), `store after crash ${mode} call ${k} and a re-run`).toEqual(expected);
            exercised++;
          } finally {
            await fx.dispose();
          }
        }
      }
      expect(exercised).toBe(2 * Math.ceil(calls / every));
    },
    300_000,
  );
}

describeEachStore("crash at every store call of a refresh", suite);
