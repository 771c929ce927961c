import { MisconfiguredError } from "./errors.js";
import type { ObjectStore } from "./types.js";

/**
 * Per-backend settings a caller may pass to openStore; each backend adds and reads its own field (by declaration
 * merging in its scheme file), so this registry knows no backend's types.
 */
export interface OpenStoreOptions {}

/**
 * A store backend as a URL scheme. Adding a backend is its own file that calls `registerStoreScheme` when it loads,
 * plus its line in backends.ts: store URLs (`--store`, the config) and object URLs (inputs, `validate`) then reach it.
 */
export interface StoreScheme {
  /** Lower-case schemes it answers for, e.g. ["s3"]. */
  schemes: string[];
  /** The store a URL names: `<scheme>://<root>[/<prefix>]`. */
  open(url: string, options: OpenStoreOptions): ObjectStore;
  /** An object URL split into the URL of a store that holds it and its key; absent when objects are not addressable. */
  split?(url: string): { storeUrl: string; key: string };
  /** How URLs of this scheme look, for error messages. */
  example: string;
  /** The store lives in this process only (memory://): another thread or process opening the URL sees another store. */
  processLocal?: boolean;
}

const registry = new Map<string, StoreScheme>();

export function registerStoreScheme(scheme: StoreScheme): void {
  for (const name of scheme.schemes) registry.set(name.toLowerCase(), scheme);
}

/** The scheme of `url` (lower case), or undefined for a plain path. */
export function schemeOf(url: string): string | undefined {
  return /^([a-z][a-z0-9+.-]*):\/\//i.exec(url)?.[1]?.toLowerCase();
}

const examples = () => [...new Set(registry.values())].map((s) => s.example).join(", ");

/** The backend for a URL; a plain path (no scheme) is registered as "". */
function schemeFor(url: string): StoreScheme {
  const name = schemeOf(url) ?? "";
  const scheme = registry.get(name);
  if (!scheme) throw new MisconfiguredError(`unsupported store URL scheme '${name}://' in ${url}: use ${examples()}`);
  return scheme;
}

/** Whether a scheme's backend has registered itself (backends.ts loads the others on first use). */
export function isRegistered(scheme: string): boolean {
  return registry.has(scheme);
}

/** Opens the store a URL names; a plain path is the filesystem store (the embedded default). */
export function openStore(url: string, options: OpenStoreOptions = {}): ObjectStore {
  if (url.trim() === "") throw new MisconfiguredError(`empty store URL: use ${examples()}`);
  return schemeFor(url).open(url, options);
}

/** The local path a plain path or file:// URL names (inputs, `validate`). */
export function localPathOf(ref: string): string {
  return schemeOf(ref) === "file" ? new URL(ref).pathname : ref;
}

/** Whether another thread or process that opens `url` reaches the same store (every backend but memory://). */
export function sharedAcrossProcesses(url: string): boolean {
  return schemeFor(url).processLocal !== true;
}

/** Whether `url` names an object in a registered store (s3://bucket/key, …), as opposed to a local file. */
export function isObjectUrl(url: string): boolean {
  const name = schemeOf(url);
  return name !== undefined && registry.get(name)?.split !== undefined;
}

/** The store holding the object an object URL names, and its key. The caller closes the store. */
export function openObject(
  url: string,
  options: OpenStoreOptions = {},
): { store: ObjectStore; key: string; storeUrl: string } {
  const scheme = schemeFor(url);
  if (!scheme.split)
    throw new MisconfiguredError(`${url}: ${schemeOf(url)}:// names stores, not objects; name a file by its path`);
  const { storeUrl, key } = scheme.split(url);
  return { store: scheme.open(storeUrl, options), key, storeUrl };
}

/**
 * `<scheme>://<root>/<key>[?query]` → the store `<scheme>://<root>[?query]` and the key (never empty); `root`
 * names the first segment in errors ("bucket", "container").
 */
export function splitAfterRoot(root: string): (url: string) => { storeUrl: string; key: string } {
  return (url) => {
    const scheme = url.slice(0, url.indexOf("://"));
    const [path, query] = [
      url.slice(`${scheme}://`.length).split("?")[0] ?? "",
      url.includes("?") ? url.slice(url.indexOf("?")) : "",
    ];
    const slash = path.indexOf("/");
    if (slash <= 0 || slash === path.length - 1)
      throw new MisconfiguredError(`${url}: expected ${scheme}://${root}/key`);
    return { storeUrl: `${scheme}://${path.slice(0, slash)}${query}`, key: decodeURIComponent(path.slice(slash + 1)) };
  };
}
