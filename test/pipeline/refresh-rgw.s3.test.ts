import { describeRefresh } from "./refresh.js";

describeRefresh("s3");
