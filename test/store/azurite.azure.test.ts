import { describeStoreConformance } from "./conformance.js";

describeStoreConformance("azure");
