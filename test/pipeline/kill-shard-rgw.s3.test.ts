import { describeKillShard } from "./kill-shard.js";

describeKillShard("s3");
