import { GeorefreshError } from "../errors.js";
import type { ErrorCode } from "../errors.js";
/** An input cannot be identified or read as the run identified it (missing, changed mid-run, refused). */
export class InputIdentityError extends GeorefreshError {
  override readonly code: ErrorCode = "InputIdentity";
}

/**
 * An input that is not there (no such file, object or URL: ENOENT, NotFound, HTTP 404/410): a setup problem the
 * user fixes (exit 2), not a failure of the run. A task's optional inputs (a Shapefile's .prj or .cpg) are keyed
 * as absent instead.
 */
export class InputMissingError extends InputIdentityError {
  override readonly code: ErrorCode = "InputMissing";
}
