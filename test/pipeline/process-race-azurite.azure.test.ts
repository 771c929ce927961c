import { describeProcessRaces } from "./process-race.js";

describeProcessRaces("azure");
