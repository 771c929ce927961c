import { fileURLToPath } from "node:url";
import { MisconfiguredError } from "./errors.js";
import { FsStore } from "./fs.js";
import { MemoryStore } from "./memory.js";
import { azureScheme } from "./azure.js";
import { S3Store } from "./s3.js";
import type { S3StoreOptions } from "./s3.js";
import { registerStoreScheme, splitAfterRoot } from "./schemes.js";

export {
  openObject,
  isObjectUrl,
  openStore,
  registerStoreScheme,
  sharedAcrossProcesses,
  splitAfterRoot,
} from "./schemes.js";
export type { OpenStoreOptions, StoreScheme } from "./schemes.js";

/**
 * The built-in schemes, registered once here (importing openStore from this module guarantees them):
 * - a plain path or file:///abs/path → filesystem (the embedded default)
 * - memory://name → in-process memory
 * - s3://bucket[/prefix][?endpoint=…&region=…&path_style=true] → S3; endpoint, region and credentials otherwise
 *   come from AWS_ENDPOINT_URL_S3 / AWS_ENDPOINT_URL, AWS_REGION, and the SDK's credential chain;
 *   GEOREFRESH_S3_PATH_STYLE=true forces path-style addressing.
 */
registerStoreScheme({ schemes: [""], example: "a directory", open: (url, o) => new FsStore(url, o.fs) });
registerStoreScheme({
  schemes: ["file"],
  example: "file:///path",
  open: (url, o) => new FsStore(fileURLToPath(url), o.fs),
});
registerStoreScheme({
  schemes: ["memory"],
  example: "memory://name",
  open: (url) => new MemoryStore(url.slice("memory://".length) || "default"),
  split: splitAfterRoot("name"),
  processLocal: true,
});
registerStoreScheme({
  schemes: ["s3"],
  example: "s3://bucket/prefix",
  open: (url, o) => new S3Store(s3Options(url, o.s3 ?? {})),
  split: splitAfterRoot("bucket"),
});
registerStoreScheme(azureScheme);

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
