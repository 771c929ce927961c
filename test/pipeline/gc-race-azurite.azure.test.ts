import { describeGcRaces } from "./gc-race.js";

describeGcRaces("azure");
