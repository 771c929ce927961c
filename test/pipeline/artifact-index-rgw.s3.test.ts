import { describeArtifactIndex } from "./artifact-index.js";

describeArtifactIndex("s3");
