import { describeArtifactIndex } from "./artifact-index.js";

describeArtifactIndex("azure");
