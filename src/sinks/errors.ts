import { GeorefreshError } from "../errors.js";
import type { ErrorCode } from "../errors.js";

/** A name that cannot become a SQL identifier, or a column type no sink table can hold (exit 2). */
export class SinkSchemaError extends GeorefreshError {
  override readonly code: ErrorCode = "SinkSchema";
}

/** A partition the sink refused to apply: duplicate keys, a count unlike its manifest's, a changed type (exit 1). */
export class SinkRefusedError extends GeorefreshError {
  override readonly code: ErrorCode = "SinkRefused";
}

/** The database cannot be reached or refused the login; the GeoPackage cannot be opened (exit 3). */
export class SinkConnectError extends GeorefreshError {
  override readonly code: ErrorCode = "SinkConnect";
}

/** The database stayed held by another program past the sink's wait: nothing was changed; run again (exit 75). */
export class SinkBusyError extends GeorefreshError {
  override readonly code: ErrorCode = "SinkBusy";
}

/** `--to` names no place a sink can go: not a PostgreSQL URL or a .gpkg path, or a schema of PostgreSQL's own (exit 2). */
export class SinkTargetError extends GeorefreshError {
  override readonly code: ErrorCode = "SinkTarget";
}

/** The database is down, restarting or out of connections: nothing was changed; run again (exit 75). */
export class SinkUnavailableError extends GeorefreshError {
  override readonly code: ErrorCode = "SinkUnavailable";
}
