import { describeKills } from "./kill.js";

describeKills("fs");
