import { describeEachStore } from "../store/harness/index.js";
import { killTrials } from "./kill-trials.js";

// Trials 6–10 of each store's 10, on a keyed dataset with change events (trials 1–5: kill.test.ts).
describeEachStore(
  "kill -9 during a backfill of a keyed dataset with change events",
  (h) => killTrials(h, { trials: 5, startupKill: false, keyed: true }),
  (h) => h.capabilities.crossProcess,
);
