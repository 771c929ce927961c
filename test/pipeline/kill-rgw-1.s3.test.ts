import { describeKills } from "./kill.js";

// Trials 1–5 of 10 (the other five: kill-rgw-2).
describeKills("s3", 5, "trials 1–5");
