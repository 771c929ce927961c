import { describeKills } from "./kill.js";

describeKills("azure");
