import { describeProcessRaces } from "./process-race.js";

describeProcessRaces("s3");
