import type { ObjectStore } from "./types.js";
import { isRegistered, openStore, schemeOf } from "./schemes.js";
import type { OpenStoreOptions } from "./schemes.js";

/**
 * Which module registers each built-in scheme, loaded on first use: a command pays only for the SDK of the store
 * it opens (the AWS and Azure SDKs take 0.2 s each to load). A new backend is its own file that calls
 * registerStoreScheme, plus one line here (and one import in open.ts for library callers).
 */
export const BACKENDS: Record<string, () => Promise<unknown>> = {
  "": () => import("./fs-scheme.js"),
  file: () => import("./fs-scheme.js"),
  memory: () => import("./memory-scheme.js"),
  s3: () => import("./s3-scheme.js"),
  az: () => import("./azure.js"),
  azure: () => import("./azure.js"),
};

/** Loads the backend module a URL's scheme names, once (it registers itself); unknown schemes are left to openStore. */
export async function loadScheme(url: string): Promise<void> {
  const name = schemeOf(url) ?? "";
  if (!isRegistered(name) && Object.hasOwn(BACKENDS, name)) await (BACKENDS[name] as () => Promise<unknown>)();
}

/** openStore, after loading the URL's backend: what the CLI and workers use, so each pays only for its store's SDK. */
export async function loadStore(url: string, options: OpenStoreOptions = {}): Promise<ObjectStore> {
  await loadScheme(url);
  return openStore(url, options);
}
