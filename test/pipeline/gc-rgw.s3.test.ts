import { describeGc } from "./gc.js";

describeGc("s3");
