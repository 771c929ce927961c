import { describeRefresh } from "./refresh.js";

describeRefresh("fs");
