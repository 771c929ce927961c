import { describeKnownManifests } from "./known-manifests.js";

describeKnownManifests("memory");
