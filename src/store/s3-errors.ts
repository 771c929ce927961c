import {
  AccessDeniedError,
  InvalidRangeError,
  MisconfiguredError,
  NotFoundError,
  StoreError,
  UnavailableError,
} from "./errors.js";

/** What an S3 failure means for the caller, decided from status and error name, never from the vendor. */
export type S3Failure =
  | "not-found"
  | "precondition" // 412, or 404 on If-Match: the condition was evaluated and failed
  | "ambiguous" // the write may or may not have landed: 500, 409 ConditionalRequestConflict, timeout, reset
  | "transient" // safe to retry an idempotent call (5xx, throttling, network), or any call never sent
  | "access"
  | "no-bucket"
  | "range"
  | "fatal";

interface SdkError {
  name?: string;
  code?: string;
  message?: string;
  $metadata?: { httpStatusCode?: number };
}

/** The connection was never made, so nothing was sent: a retry is safe even for a conditional PUT. */
const NOT_SENT_CODES = new Set(["ECONNREFUSED", "ENOTFOUND", "EAI_AGAIN", "EHOSTUNREACH", "ENETUNREACH"]);
/** The connection broke mid-request: a write may have landed. */
const NETWORK_CODES = new Set(["ECONNRESET", "ETIMEDOUT", "EPIPE", "ECONNABORTED", "UND_ERR_SOCKET"]);
const THROTTLE_NAMES = new Set([
  "SlowDown",
  "Throttling",
  "ThrottlingException",
  "RequestLimitExceeded",
  "TooManyRequests",
  "RequestTimeout",
  "InternalError",
  "ServiceUnavailable",
]);
const ACCESS_NAMES = new Set([
  "AccessDenied",
  "InvalidAccessKeyId",
  "SignatureDoesNotMatch",
  "ExpiredToken",
  "InvalidToken",
  "CredentialsProviderError",
  "AllAccessDisabled",
]);

export function statusOf(error: unknown): number | undefined {
  return (error as SdkError | undefined)?.$metadata?.httpStatusCode;
}

export function classify(error: unknown, conditional: boolean): S3Failure {
  const e = (error ?? {}) as SdkError;
  const status = statusOf(error);
  const name = e.name ?? "";
  if (ACCESS_NAMES.has(name) || status === 403 || status === 401) return "access";
  if (name === "NoSuchBucket") return "no-bucket";
  if (name === "InvalidRange" || status === 416) return "range";
  if (status === 412 || name === "PreconditionFailed") return "precondition";
  if (name === "NoSuchKey" || name === "NotFound" || status === 404) return conditional ? "precondition" : "not-found";
  if (name === "ConditionalRequestConflict" || status === 409) return conditional ? "ambiguous" : "transient";
  if (NOT_SENT_CODES.has(e.code ?? "") || NOT_SENT_CODES.has(name)) return "transient";
  const network =
    NETWORK_CODES.has(e.code ?? "") || NETWORK_CODES.has(name) || name === "TimeoutError" || name === "AbortError";
  if (network || THROTTLE_NAMES.has(name) || status === 429 || (status !== undefined && status >= 500)) {
    return conditional ? "ambiguous" : "transient";
  }
  return "fatal";
}

/** Turns an SDK error into a typed store error whose message says what to do, and never carries secrets. */
export function toStoreError(
  error: unknown,
  what: string,
  ctx: { key?: string; endpoint: string; bucket: string },
): StoreError {
  const e = (error ?? {}) as SdkError;
  const status = statusOf(error);
  const name = e.name && e.name !== "Error" ? e.name : (e.code ?? e.name ?? "Error");
  const detail = `${name}${status ? ` (HTTP ${status})` : ""}`;
  const opts = { key: ctx.key, cause: error };
  // Nothing was refused: the SDK's chain found no credentials to send (issue 27 item 8).
  if (name === "CredentialsProviderError")
    return new AccessDeniedError(
      `${what}: no AWS credentials were found (the SDK looked in AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY, AWS_PROFILE and ~/.aws, web identity, and the container or instance role). Set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or AWS_PROFILE`,
      opts,
    );
  switch (classify(error, false)) {
    case "access":
      return new AccessDeniedError(
        `${what}: the store refused the credentials: ${detail}. Check AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY or the AWS profile, and the bucket policy`,
        opts,
      );
    case "no-bucket":
      return new MisconfiguredError(
        `${what}: bucket '${ctx.bucket}' does not exist at ${ctx.endpoint}; create it or fix the store URL`,
        opts,
      );
    case "not-found":
      return new NotFoundError(`${what}: not found`, opts);
    case "range":
      return new InvalidRangeError(`${what}: byte range not satisfiable: ${detail}`, opts);
    case "transient":
      return new UnavailableError(
        `${what}: S3 endpoint ${ctx.endpoint} kept failing: ${detail}; is the server running and reachable? Run again later`,
        opts,
      );
    default:
      if (/region/i.test(e.message ?? "")) {
        return new MisconfiguredError(
          `${what}: no AWS region set; set AWS_REGION or add ?region=… to the store URL`,
          opts,
        );
      }
      return new StoreError(`${what}: unexpected S3 error ${detail}`, opts);
  }
}
