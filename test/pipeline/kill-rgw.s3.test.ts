import { describeKills } from "./kill.js";

describeKills("s3");
