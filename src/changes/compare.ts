import { createHash } from "node:crypto";
import { GeorefreshError } from "../errors.js";
import type { ErrorCode } from "../errors.js";
import { openRanged } from "../geoparquet/ranged-read.js";
import type { RangedFile, RangeSource } from "../geoparquet/ranged-read.js";
import { storeSource } from "../geoparquet/store-source.js";
import type { ManifestEntry } from "../manifest/types.js";
import type { ObjectStore } from "../store/types.js";
import { changelogOf } from "./changelog.js";
import type { Changelog, Side } from "./changelog.js";
import { diffDigests } from "./diff.js";
import { recentDigests } from "./digest-cache.js";
import { digestReady, RowDigester } from "./row-digest.js";

/** A change set that cannot be computed: a version altered in the store, or written without the key. */
export class ChangesError extends GeorefreshError {
  override readonly code: ErrorCode = "Changes";
}

/**
 * A stored version as one side of a change set, digested from the store by ranges (one row group at a time) and
 * checked against the entry's sha256. A version written before the task had this key (the key's columns absent)
 * has no rows to compare by: undefined, and the change set is then that of a first version.
 */
export async function storedSide(
  store: ObjectStore,
  entry: Pick<ManifestEntry, "artifact" | "bytes" | "sha256" | "columns">,
  key: readonly string[],
  chunkBytes: number,
): Promise<Side | undefined> {
  if (!key.every((k) => entry.columns.some((c) => c.name === k))) return undefined;
  const { where, source, open } = await storedFile(store, entry, chunkBytes);
  const cached = recentDigests.get(entry.sha256, key);
  if (cached) return { ...cached, open };
  // Hashed whole before a byte is decoded: an altered artifact can panic the Parquet decoder (WebAssembly) in a
  // way that escapes as an uncaught error and ends the process, instead of being refused by name.
  const hash = createHash("sha256");
  for (let at = 0; at < source.size; at += chunkBytes)
    hash.update(await source.read(at, Math.min(chunkBytes, source.size - at)));
  const whole = hash.digest("hex");
  if (whole !== entry.sha256) throw altered(where, whole, entry.sha256);
  const file = await open();
  await digestReady();
  const geometry = file.geo.primary_column;
  const covering = file.geo.columns[geometry]?.covering?.bbox?.xmin?.[0];
  const digester = new RowDigester({ key, geometry, skip: covering ? [covering] : [] }, file.rows);
  // The covering is derived from the geometry and is no attribute: not decoding it halves the read.
  for await (const g of file.rowGroups(file.columns.filter((c) => c !== covering))) digester.group(g.table);
  const sha256 = await file.sha256();
  if (sha256 !== entry.sha256) throw altered(where, sha256, entry.sha256);
  const digests = digester.finish();
  recentDigests.put(entry.sha256, key, digests, geometry);
  return { digests, open, geometry };
}

/** A stored version, read by ranges: where it is, its bytes as a range source, and its opening. */
export async function storedFile(
  store: ObjectStore,
  entry: Pick<ManifestEntry, "artifact" | "bytes">,
  chunkBytes: number,
): Promise<{ where: string; source: RangeSource; open: () => Promise<RangedFile> }> {
  const where = store.locate(entry.artifact);
  const source = await storeSource(store, entry.artifact, chunkBytes, entry.bytes);
  return { where, source, open: () => openRanged(source, where, { chunkBytes }) };
}

function altered(where: string, found: string, named: string): ChangesError {
  return new ChangesError(
    `${where} reads as sha256 ${found.slice(0, 12)}…, not the ${named.slice(0, 12)}… its manifest names: the artifact was altered in the store`,
  );
}

/** The change set from one stored version to another, compared directly (no changelog in between is read). */
export async function compareStored(
  store: ObjectStore,
  before: ManifestEntry | undefined,
  after: ManifestEntry,
  key: string[],
  chunkBytes: number,
  options: { geometry?: boolean } = {},
): Promise<Changelog> {
  const a = await storedSide(store, after, key, chunkBytes);
  if (!a)
    throw new ChangesError(
      `${store.locate(after.artifact)} has no column ${key.join(", ")}: it was written before the task named this key, so it has no rows to compare by`,
    );
  const b = before ? await storedSide(store, before, key, chunkBytes) : undefined;
  return changelogOf(diffDigests(b?.digests, a.digests), key, b, a, options);
}
