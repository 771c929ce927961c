import { describeKillShard } from "./kill-shard.js";

describeKillShard("azure");
