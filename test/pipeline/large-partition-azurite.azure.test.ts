import { describeLargePartition } from "./large-partition.js";

describeLargePartition("azure");
