import type { ObjectStore } from "../store/types.js";

/** What the server serves: one store, and the datasets in it (the only collection ids a path can name). */
export interface ServeOptions {
  store: ObjectStore;
  datasets: readonly string[];
  /** Where links point, as clients reach the server: http://host:port, given the request's Host header. */
  base: (host: string | undefined) => string;
  /** The most artifact bytes one request reads (a page ends early; a tile or feature past it is refused). */
  maxRead?: number;
  /** How many artifact bytes' worth of decoded partitions and tile indexes the server keeps between requests. */
  cacheBytes?: number;
  /** A partition up to this size is decoded whole and cached; a larger one is paged by row group. */
  wholeBytes?: number;
  /** How long one read of a dataset's manifests serves requests, in ms (0: read them for every request). */
  recheckMs?: number;
  /** Each request that failed on the server's side (not the client's), for the operator's log. */
  onError?: (error: unknown, path: string) => void;
  /**
   * Host names (no port) requests may name besides the loopback's and IP literals (a DNS name rebound to this
   * machine is answered 421: DNS rebinding); "*" takes any.
   */
  allowedHosts?: readonly string[];
  /** How long a client may take to send a request's headers, in ms (slow clients hold connections open). */
  headersTimeoutMs?: number;
}

export const DEFAULT_MAX_READ = 256 * 2 ** 20;
export const DEFAULT_CACHE = 512 * 2 ** 20;
export const DEFAULT_RECHECK_MS = 1000;
export const DEFAULT_WHOLE = 32 * 2 ** 20;
export const DEFAULT_HEADERS_TIMEOUT_MS = 10_000;
/** Connections one server holds open at once; past it a new one is refused until one closes. */
export const MAX_CONNECTIONS = 256;
