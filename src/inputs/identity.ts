import { InputIdentityError, InputMissingError } from "./identity-error.js";
import { readCopy } from "./input-copy.js";
import type { LocalCopy } from "./input-copy.js";
import type { ObjectStore } from "../store/types.js";

/** An input as the run sees it: where it is, and what it is (content identity read once at run start). */
export interface ResolvedInput {
  uri: string;
  identity: string;
  /**
   * Where the identity holds, when it is a validator that means something only there (an HTTP ETag, an object's
   * version): the canonical URL, part of the key beside the identity. Absent for a sha256 of the bytes, which
   * needs no location (the same bytes at another path are the same input).
   */
  location?: string;
  /** The bytes, as identified (read on demand from the run's verified copy for remote inputs). */
  read(): Promise<Uint8Array>;
  /** A local file with the verified bytes, for inputs too large to hold in memory. */
  path(): Promise<string>;
  /** An optional input that is not there: keyed as absent; reading it rejects with InputMissingError. */
  absent?: true;
  /** Remote inputs: the run's verified local copy (downloaded once), to hand to a partition worker. */
  localCopy?(): Promise<LocalCopy>;
}

/** A remote input a dispatcher already identified and downloaded: what a worker receives instead of the URL. */
export interface PreparedInput {
  identity: string;
  location?: string;
  copy: LocalCopy;
}

/** What the key takes of an input: its identity, and where that identity holds when it is located. */
export const keyedIdentity = (i: Pick<ResolvedInput, "identity" | "location">) =>
  i.location === undefined ? i.identity : `${i.identity} at ${i.location}`;

export { InputIdentityError, InputMissingError };

/** The identity an optional input that is not there is keyed by: its appearing later makes a new key. */
export const ABSENT = "absent";

/** An optional input found missing at run start (a Shapefile without a .cpg): part of the key as absent. */
export function absentInput(uri: string): ResolvedInput {
  const missing = () => Promise.reject(new InputMissingError(`input ${uri} does not exist (it is optional)`));
  return { uri, identity: ABSENT, absent: true, read: missing, path: missing };
}

/** What resolving an input may use: the run's store (upstream datasets), the task's allowed hosts. */
export interface InputContext {
  store?: ObjectStore;
  allowHosts?: readonly string[];
}

/**
 * One kind of input (http, an upstream dataset, an object URL, a local file): which URIs it answers for and how
 * it identifies one. A new kind is one file exporting an InputKind plus one line in resolve.ts's table.
 */
export interface InputKind {
  name: string;
  matches(uri: string): boolean;
  resolve(uri: string, context: InputContext): Promise<ResolvedInput>;
}

/** A remote input a dispatcher downloaded: read from its verified copy, never fetched again. */
export function preparedInput(uri: string, p: PreparedInput): ResolvedInput {
  return {
    uri,
    identity: p.identity,
    ...(p.location === undefined ? {} : { location: p.location }),
    localCopy: async () => p.copy,
    read: () => readCopy(p.copy, uri),
    path: async () => p.copy.path,
  };
}
