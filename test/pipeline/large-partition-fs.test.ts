import { describeLargePartition } from "./large-partition.js";

describeLargePartition("fs");
