import { GeorefreshError } from "../errors.js";
/**
 * Typed store errors. Callers branch on the class (or `code`), never on message text: the protocol depends on
 * telling "someone else got there first" (AlreadyExists / PreconditionFailed) apart from "try again later"
 * (Unavailable) and "fix your setup" (AccessDenied / Misconfigured).
 */
export type StoreErrorCode =
  | "NotFound"
  | "AlreadyExists"
  | "PreconditionFailed"
  | "InvalidKey"
  | "InvalidRange"
  | "AccessDenied"
  | "Unavailable"
  | "LockTimeout"
  | "Misconfigured"
  | "SpecialFile"
  | "Internal";

export interface StoreErrorOptions {
  key?: string | undefined;
  cause?: unknown;
}

/** Any store failure; used directly only for the unexpected ("Internal"). Subclasses set `code`. */
export class StoreError extends GeorefreshError {
  static readonly code: StoreErrorCode = "Internal";
  override readonly code: StoreErrorCode;
  readonly key: string | undefined;

  constructor(message: string, options: StoreErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = (new.target as typeof StoreError).code;
    this.name = `${this.code}Error`;
    this.key = options.key;
  }
}

/** The object does not exist. */
export class NotFoundError extends StoreError {
  static override readonly code = "NotFound";
}

/** A `create` put found the key already taken. */
export class AlreadyExistsError extends StoreError {
  static override readonly code = "AlreadyExists";
}

/** An `update` put found a different version (or no object) where the caller expected its version. */
export class PreconditionFailedError extends StoreError {
  static override readonly code = "PreconditionFailed";
}

/** The key breaks the key rules (see keys.ts); nothing was sent to the store. */
export class InvalidKeyError extends StoreError {
  static override readonly code = "InvalidKey";
}

/** A byte range that starts past the end of the object, or is not a range at all. */
export class InvalidRangeError extends StoreError {
  static override readonly code = "InvalidRange";
}

/** Credentials missing or refused, or no permission on the path. The message never contains a secret. */
export class AccessDeniedError extends StoreError {
  static override readonly code = "AccessDenied";
}

/** The store could not be reached or kept failing after retries; running again later may succeed. */
export class UnavailableError extends StoreError {
  static override readonly code = "Unavailable";
}

/** A filesystem key lock stayed held by a live process for longer than the wait limit. */
export class LockTimeoutError extends StoreError {
  static override readonly code = "LockTimeout";
}

/** The store URL or its settings are wrong (no such bucket, bad URL, unsupported scheme). */
export class MisconfiguredError extends StoreError {
  static override readonly code = "Misconfigured";
}

/**
 * The filesystem store found a symlink, FIFO, socket or device where an object or a directory of objects should
 * be. It never follows or opens one, so every command answers the same for such a path.
 */
export class SpecialFileError extends StoreError {
  static override readonly code = "SpecialFile";
}

/** Failures of the store itself, not of one key's contents: a run or backfill stops and exits 3 on these. */
const UNUSABLE: readonly StoreErrorCode[] = [
  "Unavailable",
  "AccessDenied",
  "Misconfigured",
  "LockTimeout",
  "SpecialFile",
];

/**
 * Whether a failure's error code says the store itself cannot be used (a run stops starting partitions); the exit
 * code table says which are for now (Unavailable, LockTimeout: 75) and which for good (3).
 */
export function isUnusableCode(code: string | undefined): boolean {
  return (UNUSABLE as readonly string[]).includes(code as string);
}

export function isStoreError(error: unknown, code?: StoreErrorCode): error is StoreError {
  return error instanceof StoreError && (code === undefined || error.code === code);
}
