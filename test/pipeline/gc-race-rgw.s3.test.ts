import { describeGcRaces } from "./gc-race.js";

describeGcRaces("s3");
