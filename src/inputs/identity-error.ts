import { GeorefreshError } from "../errors.js";
import type { ErrorCode } from "../errors.js";
/** An input cannot be identified or read as the run identified it (missing, changed mid-run, refused). */
export class InputIdentityError extends GeorefreshError {
  override readonly code: ErrorCode = "InputIdentity";
}
