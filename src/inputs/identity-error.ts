import { GeorefreshError } from "../errors.js";
/** An input cannot be identified or read as the run identified it (missing, changed mid-run, refused). */
export class InputIdentityError extends GeorefreshError {}
