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
  | "AccessDenied"
  | "Unavailable"
  | "LockTimeout"
  | "Misconfigured"
  | "InvalidRange"
  | "Internal";

export class StoreError extends Error {
  readonly code: StoreErrorCode;
  readonly key: string | undefined;

  constructor(code: StoreErrorCode, message: string, options?: { key?: string; cause?: unknown }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = `${code}Error`;
    this.code = code;
    this.key = options?.key;
  }
}

/** The object does not exist. */
export class NotFoundError extends StoreError {
  constructor(message: string, options?: { key?: string; cause?: unknown }) {
    super("NotFound", message, options);
  }
}

/** A `create` put found the key already taken. */
export class AlreadyExistsError extends StoreError {
  constructor(message: string, options?: { key?: string; cause?: unknown }) {
    super("AlreadyExists", message, options);
  }
}

/** An `update` put found a different version (or no object) where the caller expected its version. */
export class PreconditionFailedError extends StoreError {
  constructor(message: string, options?: { key?: string; cause?: unknown }) {
    super("PreconditionFailed", message, options);
  }
}

/** The key breaks the key rules (see keys.ts); nothing was sent to the store. */
export class InvalidKeyError extends StoreError {
  constructor(message: string, options?: { key?: string; cause?: unknown }) {
    super("InvalidKey", message, options);
  }
}

/** Credentials missing or refused. The message never contains the secret. */
export class AccessDeniedError extends StoreError {
  constructor(message: string, options?: { key?: string; cause?: unknown }) {
    super("AccessDenied", message, options);
  }
}

/** The store could not be reached or kept failing after retries; running again later may succeed. */
export class UnavailableError extends StoreError {
  constructor(message: string, options?: { key?: string; cause?: unknown }) {
    super("Unavailable", message, options);
  }
}

/** A filesystem key lock stayed held by a live process for longer than the wait limit. */
export class LockTimeoutError extends StoreError {
  constructor(message: string, options?: { key?: string; cause?: unknown }) {
    super("LockTimeout", message, options);
  }
}

/** The store URL or its settings are wrong (no such bucket, bad URL, unsupported scheme). */
export class MisconfiguredError extends StoreError {
  constructor(message: string, options?: { key?: string; cause?: unknown }) {
    super("Misconfigured", message, options);
  }
}

/** A byte range that starts past the end of the object. */
export class InvalidRangeError extends StoreError {
  constructor(message: string, options?: { key?: string; cause?: unknown }) {
    super("InvalidRange", message, options);
  }
}

export function isStoreError(error: unknown, code?: StoreErrorCode): error is StoreError {
  return error instanceof StoreError && (code === undefined || error.code === code);
}
