import { describeKills } from "./kill.js";

// Trials 6–10 of 10, on a keyed dataset with change events (the first five: kill-rgw-1).
describeKills("s3", 5, "trials 6–10", false, true);
