import { describeLargePartition } from "./large-partition.js";

describeLargePartition("s3");
