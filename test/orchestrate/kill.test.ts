import { describeEachStore } from "../store/harness/index.js";
import { killTrials } from "./kill-trials.js";

// Trials 1–5 of each store's 10, the first at startup (trials 6–10: kill-keyed.test.ts).
describeEachStore(
  "kill -9 during a backfill",
  (h) => killTrials(h, { trials: 5, startupKill: true, keyed: false }),
  (h) => h.capabilities.crossProcess,
);
