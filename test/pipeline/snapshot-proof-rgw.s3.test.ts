import { describeSnapshotProof } from "./snapshot-proof.js";

// On Ceph RGW the proof rests on real ETags: a LIST must show each manifest at the version its GET gave.
describeSnapshotProof("s3");
