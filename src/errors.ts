/**
 * Every georefresh error's stable code, for machines and for the CLI's one table from code to exit code
 * (cli/exit-codes.ts, a Record over this union: a code without an exit code does not compile). Store codes are
 * store/errors.ts's.
 */
export type ErrorCode =
  // arguments, configuration and local inputs (exit 2)
  | "Usage"
  | "Config"
  | "Backfill"
  | "Pin"
  | "Schedule"
  | "PartitionName"
  | "GcFloor"
  | "Input"
  | "InputMissing"
  | "MemorySetting"
  | "TaskLoad"
  | "GeoParquetRead"
  // what a command found or refused (exit 1)
  | "Read"
  | "HistoryTooShort"
  | "Manifest"
  | "TamperedManifest"
  | "Snapshot"
  | "Stac"
  | "Report"
  | "Changes"
  | "SinkSchema"
  | "SinkRefused"
  | "Refresh"
  | "ComputeOutput"
  | "NonDeterministic"
  | "Memo"
  | "Staging"
  | "Crs"
  | "Wkb"
  | "FeatureSchema"
  | "GeoParquetWrite"
  | "GeoMetadata"
  | "Thrift"
  | "GeometryColumn"
  | "InputIdentity"
  | "InputRefused"
  | "InputTooLarge"
  // a declarative source's file cannot become rows (exit 5, as a failed partition)
  | "Source"
  // an upstream dataset is not promoted yet (exit 75: later)
  | "UpstreamMissing"
  // a sink's database stayed held by another program, or is down or restarting (exit 75: later)
  | "SinkBusy"
  | "SinkUnavailable"
  // a sink's --to that names no place a sink can go (exit 2)
  | "SinkTarget"
  // the store (store/errors.ts)
  | "NotFound"
  | "AlreadyExists"
  | "PreconditionFailed"
  | "InvalidKey"
  | "InvalidRange"
  | "AccessDenied"
  | "Unavailable"
  | "LockTimeout"
  | "SinkConnect"
  | "Misconfigured"
  | "SpecialFile"
  | "Internal";

/** The base of every georefresh error: each class names its `code` (one of ErrorCode), never derived from its name. */
export abstract class GeorefreshError extends Error {
  abstract readonly code: ErrorCode;

  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = new.target.name;
  }
}
