import { describeStacOverlap } from "./stac-overlap.js";

describeStacOverlap("s3");
