import { describeStacOverlap } from "./stac-overlap.js";

describeStacOverlap("azure");
