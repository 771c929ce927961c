import { describeKills } from "./kill.js";

// Trials 1–5 of 10 (the other five: kill-fs-2).
describeKills("fs", 5, "trials 1–5");
