/**
 * A store backend as every store suite sees it (Go CDK's drivertest harness): how to open a fresh, isolated store
 * of it, what it can do, and how to clean up. One file per backend implements this (fs.ts, memory.ts, rgw.ts,
 * azurite.ts) and registers itself in index.ts; every suite that runs on "every store" then runs on it.
 */
import type { ObjectStore } from "../../../src/store/types.js";

/** A fresh, isolated store of one backend, plus the URL and env a child process needs to open the same one. */
export interface StoreFixture {
  store: ObjectStore;
  /** For openStore() in another process; undefined where objects cannot be shared across processes. */
  url: string | undefined;
  env: Record<string, string>;
  dispose(): Promise<void>;
}

/** What suites assert differently from one store to the next: declared by the harness, never read off its name. */
export interface StoreCapabilities {
  /** Another process can open the same objects from the fixture's `url` (every store but the in-process memory one). */
  readonly crossProcess: boolean;
  /** A write's version follows from its bytes (an MD5 ETag), so a twin run can predict it; Azure's ETags are opaque. */
  readonly predictsVersions: boolean;
  /**
   * How a re-run settles its partitions: `native` stores prefer one listing to a GET per manifest (S3, Azure),
   * `optional` ones can be asked to (the memory store stands in for a listing store), `never` ones cannot (fs).
   */
  readonly listing: "native" | "optional" | "never";
  /** A listing carries each object's version, so a manifest listed unchanged need not be fetched again (not fs). */
  readonly listedVersions: boolean;
  /** Every call is a round trip to a server: suites that repeat a whole run once per store call sample every third. */
  readonly remote: boolean;
}

/** A store that uploads a large body in parts (S3 multipart, Azure blocks) says how many parts a stored object took. */
export interface UploadsInParts {
  /** The parts `key` was uploaded in: 0 for a single PUT. */
  partsOf(store: ObjectStore, key: string): Promise<number>;
}

export interface StoreHarness {
  /** The name suites print and `-t` filters match: fs, memory, s3, azure. */
  readonly name: string;
  readonly capabilities: StoreCapabilities;
  /** Present where the store uploads in parts. */
  readonly uploads?: UploadsInParts;
  /**
   * Why this backend cannot run here, or undefined when it can. Only a server left out on purpose outside CI
   * (GEOREFRESH_SKIP_S3=1, GEOREFRESH_SKIP_AZURE=1) makes it unavailable; in CI every backend runs.
   */
  unavailable(): string | undefined;
  /** A fresh, isolated store; `dispose()` removes everything it holds. */
  open(): Promise<StoreFixture>;
}

/** A store that prefers listing, for suites that settle re-runs by listing: the store itself where it does by nature. */
export function listingStore(harness: StoreHarness, store: ObjectStore): ObjectStore {
  if (harness.capabilities.listing === "native") return store;
  if (harness.capabilities.listing === "optional")
    return Object.assign(Object.create(store) as ObjectStore, { prefersListing: true });
  throw new Error(`the ${harness.name} store cannot settle by listing (capabilities.listing is "never")`);
}
