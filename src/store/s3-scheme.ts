import { MisconfiguredError } from "./errors.js";
import { S3Store } from "./s3.js";
import type { S3StoreOptions } from "./s3.js";
import { registerStoreScheme, splitAfterRoot } from "./schemes.js";

declare module "./schemes.js" {
  interface OpenStoreOptions {
    /** Overrides for s3:// URLs; anything unset comes from the URL's query, then the AWS SDK's usual sources. */
    s3?: Partial<Omit<S3StoreOptions, "bucket" | "prefix">>;
  }
}

/**
 * s3://bucket[/prefix][?endpoint=…&region=…&path_style=true] → S3; endpoint, region and credentials otherwise come
 * from AWS_ENDPOINT_URL_S3 / AWS_ENDPOINT_URL, AWS_REGION, and the SDK's credential chain;
 * GEOREFRESH_S3_PATH_STYLE=true forces path-style addressing.
 */
registerStoreScheme({
  schemes: ["s3"],
  example: "s3://bucket/prefix",
  open: (url, o) => new S3Store(s3Options(url, o.s3 ?? {})),
  split: splitAfterRoot("bucket"),
});

const TRUE = new Set(["1", "true", "yes"]);

function s3Options(url: string, overrides: Partial<S3StoreOptions>): S3StoreOptions {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new MisconfiguredError(`cannot parse store URL ${url}: expected s3://bucket/prefix`);
  }
  if (parsed.username || parsed.password) {
    throw new MisconfiguredError(
      "credentials do not belong in a store URL; use AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY or an AWS profile",
    );
  }
  const bucket = parsed.hostname;
  if (!bucket) throw new MisconfiguredError(`store URL ${url} names no bucket: expected s3://bucket/prefix`);
  // Taken from the raw text: URL parsing would quietly resolve "a/../b" to "b".
  const rawPath = url.slice("s3://".length).split(/[?#]/)[0] ?? "";
  const slash = rawPath.indexOf("/");
  const prefix = slash < 0 ? "" : decodeURIComponent(rawPath.slice(slash + 1)).replace(/\/+$/, "");
  const q = parsed.searchParams;
  const pathStyle = q.get("path_style") ?? process.env.GEOREFRESH_S3_PATH_STYLE;
  return {
    bucket,
    ...(prefix ? { prefix } : {}),
    ...(q.get("endpoint") ? { endpoint: q.get("endpoint") as string } : {}),
    ...(q.get("region") ? { region: q.get("region") as string } : {}),
    ...(pathStyle !== undefined && pathStyle !== "" ? { forcePathStyle: TRUE.has(pathStyle.toLowerCase()) } : {}),
    ...overrides,
  };
}
