import { describeGc } from "./gc.js";

describeGc("azure");
