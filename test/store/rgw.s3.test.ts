import { describeStoreConformance } from "./conformance.js";

describeStoreConformance("s3");
