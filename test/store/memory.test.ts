import { describeStoreConformance } from "./conformance.js";

describeStoreConformance("memory");
