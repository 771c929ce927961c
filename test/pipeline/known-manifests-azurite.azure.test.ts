import { describeKnownManifests } from "./known-manifests.js";

describeKnownManifests("azure");
