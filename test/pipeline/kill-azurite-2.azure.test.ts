import { describeKills } from "./kill.js";

// Trials 6–10 of 10 (the first five: kill-azurite-1).
describeKills("azure", 5, "trials 6–10", false);
