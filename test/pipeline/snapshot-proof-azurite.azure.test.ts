import { describeSnapshotProof } from "./snapshot-proof.js";

describeSnapshotProof("azure");
