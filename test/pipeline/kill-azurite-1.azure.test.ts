import { describeKills } from "./kill.js";

// Trials 1–5 of 10 (the other five: kill-azurite-2).
describeKills("azure", 5, "trials 1–5");
