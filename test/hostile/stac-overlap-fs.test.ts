import { describeStacOverlap } from "./stac-overlap.js";

describeStacOverlap("fs");
