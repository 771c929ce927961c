import { describeStoreConformance } from "./conformance.js";

describeStoreConformance("fs");
