import { describeKnownManifests } from "./known-manifests.js";

describeKnownManifests("s3");
