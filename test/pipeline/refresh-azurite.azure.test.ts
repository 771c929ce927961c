import { describeRefresh } from "./refresh.js";

describeRefresh("azure");
