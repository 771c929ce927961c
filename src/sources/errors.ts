import { GeorefreshError } from "../errors.js";
import type { ErrorCode } from "../errors.js";

/**
 * A source file that cannot become rows: unreadable, corrupt, of no CRS, a hostile archive. It fails the partition
 * (exit 5) naming the file, and nothing is published.
 */
export class SourceError extends GeorefreshError {
  override readonly code: ErrorCode = "Source";
}
