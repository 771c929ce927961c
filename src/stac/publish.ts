import { pathToFileURL } from "node:url";
import { GeorefreshError } from "../errors.js";
import type { ErrorCode } from "../errors.js";
import { sha256Hex } from "../store/digest.js";
import { predictsVersions } from "../store/types.js";
import { AlreadyExistsError, NotFoundError, PreconditionFailedError } from "../store/errors.js";
import type { ObjectStore } from "../store/types.js";
import { mapBounded } from "../bounded.js";
import { Dataset } from "../views/reader.js";
import { collectionOf } from "./collection.js";
import { itemOf } from "./item.js";
import type { StacItem } from "./item.js";
import { itemsParquet } from "./items-parquet.js";
import { collectionKey, itemKey, itemsParquetKey, stacPrefix, versionItemKey } from "./layout.js";
import { encodeState, provenUnchanged, readState, stateKey } from "./state.js";
import type { CatalogState } from "./state.js";
import { manifestKey } from "../manifest/layout.js";
import type { CatalogOptions } from "./layout.js";

export class StacError extends GeorefreshError {
  override readonly code: ErrorCode = "Stac";
}

export interface StacOptions {
  cadence: "daily" | "monthly";
  license?: string;
  title?: string;
  description?: string;
  /** How far it got: manifests read, then catalog objects written (or found unchanged). */
  onProgress?: (step: "manifests read" | "objects written", done: number, total: number) => void;
}

export interface StacSummary {
  /** Where the Collection is: what a STAC browser opens. */
  collection: string;
  items: number;
  versions: number;
  written: number;
  /** Bytes of the objects written (0 when nothing changed). */
  bytes_written: number;
  unchanged: number;
  deleted: number;
}

/**
 * Writes the dataset's static STAC catalog under stac/<dataset>/ from its manifests (docs/stac.md): one Item per
 * current partition, one per earlier version still in history, the Collection, and items.parquet. Every object
 * is compared before it is written, so a re-run with nothing changed writes nothing, and a new promotion rewrites
 * only its Items, items.parquet and the Collection. Objects of partitions no longer current are deleted last.
 */
export async function writeStac(store: ObjectStore, dataset: string, opts: StacOptions): Promise<StacSummary> {
  const catalog: CatalogOptions = {
    cadence: opts.cadence,
    license: opts.license ?? "other",
    title: opts.title,
    description: opts.description,
    collectionKey: collectionKey(dataset),
    locate: (key) => absoluteUrl(store.locate(key)),
  };
  const { onProgress, ...chosen } = opts;
  const options = JSON.stringify({ ...chosen, license: catalog.license, at: catalog.locate(catalog.collectionKey) });
  const previous = await readState(store, dataset);
  if (await provenUnchanged(store, dataset, previous, options)) return unchangedSummary(store, dataset);
  // The catalog as found, listed *before* the manifests are read: every write below is conditional on these
  // versions, so a run that another overtakes between its reading the manifests and its writing (a pause, a slow
  // store) finds the newer catalog's versions moved and stops, instead of writing its older Items over them.
  const existing = new Map<string, string | undefined>();
  for await (const e of store.list(stacPrefix(dataset))) existing.set(e.key, e.version);
  // A listing without versions (the filesystem store) is completed now, not at write time, when a HEAD would see
  // the newer catalog's version and condition on it.
  const unversioned = [...existing].filter(([, v]) => v === undefined).map(([k]) => k);
  await mapBounded(unversioned, 16, async (k) => {
    const version = await store.head(k).then(
      (m) => m.version,
      (error: unknown) => (error instanceof NotFoundError ? undefined : Promise.reject(error)),
    );
    if (version === undefined) existing.delete(k);
    else existing.set(k, version);
  });
  const { current, versions, manifests } = await itemsOf(store, dataset, catalog, (done, total) =>
    onProgress?.("manifests read", done, total),
  );
  const itemKeys = current.map(([k]) => k);
  const parquet = await itemsParquet(
    current.map(([, i]) => i),
    (key) => store.locate(key),
  );
  const collection = collectionOf(
    dataset,
    current.map(([, i]) => i),
    itemKeys,
    catalog,
  );
  // Targets before the links to them, as artifacts before manifests: earlier versions' Items (which current Items
  // link as predecessor-version), then current Items, items.parquet, the Collection last. A run killed anywhere
  // leaves no link to an Item not yet written.
  const stages: [string, Uint8Array][][] = [
    versions.map(([k, i]) => [k, json(i)]),
    current.map(([k, i]) => [k, json(i)]),
    [[itemsParquetKey(dataset), parquet]],
    [[collectionKey(dataset), json(collection)]],
  ];
  let written = 0;
  let bytesWritten = 0;
  let unchanged = 0;
  const total = stages.reduce((n, stage) => n + stage.length, 0);
  const objects: Record<string, string> = {};
  const hashes: Record<string, string> = {};
  for (const stage of stages)
    await mapBounded(stage, 16, async ([key, bytes]) => {
      hashes[key] = sha256Hex(bytes);
      const found = await same(store, key, bytes, hashes[key], existing, previous);
      if (found.same) {
        objects[key] = found.version as string;
        unchanged++;
      } else {
        const contentType = key.endsWith(".json") ? "application/json" : undefined;
        objects[key] = await guardedPut(store, dataset, key, bytes, found.version, contentType);
        written++;
        bytesWritten += bytes.length;
      }
      onProgress?.("objects written", written + unchanged, total);
    });
  const wanted = new Set([...stages.flat().map(([k]) => k), stateKey(dataset)]);
  const stale = [...existing.keys()].filter((k) => !wanted.has(k));
  // Deletes cannot be conditional: only while the Collection is still the one this run wrote, so a newer run's
  // catalog never loses an object to this one.
  const collectionNow = await store.head(collectionKey(dataset)).then(
    (m) => m.version,
    () => undefined,
  );
  if (collectionNow !== objects[collectionKey(dataset)]) throw overtaken(store, dataset, collectionKey(dataset));
  await mapBounded(stale, 16, (k) => store.delete(k));
  // Where a re-run can prove "nothing changed" from listings alone (S3, Azure), record what this catalog came from.
  if (store.prefersListing) {
    const key = stateKey(dataset);
    await guardedPut(
      store,
      dataset,
      key,
      encodeState({ options, manifests, objects, hashes }),
      existing.get(key) ?? (existing.has(key) ? null : undefined),
      "application/json",
    );
  }
  return {
    collection: store.locate(collectionKey(dataset)),
    items: current.length,
    versions: versions.length,
    written,
    bytes_written: bytesWritten,
    unchanged,
    deleted: stale.length,
  };
}

async function itemsOf(
  store: ObjectStore,
  dataset: string,
  catalog: CatalogOptions,
  onRead: (done: number, total: number) => void,
): Promise<{ current: [string, StacItem][]; versions: [string, StacItem][]; manifests: Record<string, string> }> {
  const scanned = await new Dataset(store, dataset).scan(undefined, onRead);
  if (scanned.problems[0])
    throw new StacError(
      `refusing to write a catalog that would leave out ${scanned.problems.length} partition(s): ${scanned.problems[0].message}`,
    );
  const current: [string, StacItem][] = [];
  const versions: [string, StacItem][] = [];
  const manifests: Record<string, string> = {};
  for (const { manifest: m, version, region, date } of scanned.partitions) {
    manifests[manifestKey({ dataset, region, date })] = version;
    if (!m.current || m.retired) continue;
    const p = { dataset, region: m.partition.region, date: m.partition.logical_date };
    current.push([itemKey(p), itemOf(m, m.current, m.history[0], catalog)]);
    m.history.forEach((h, i) => versions.push([versionItemKey(p, h.key), itemOf(m, h, m.history[i + 1], catalog)]));
  }
  return { current, versions, manifests };
}

/** What a proven no-op reports: the catalog as it stands, nothing written. */
async function unchangedSummary(store: ObjectStore, dataset: string): Promise<StacSummary> {
  let items = 0;
  let versions = 0;
  let objects = 0;
  for await (const e of store.list(stacPrefix(dataset))) {
    if (e.key === stateKey(dataset)) continue;
    objects++;
    if (e.key.startsWith(`${stacPrefix(dataset)}items/`)) items++;
    if (e.key.startsWith(`${stacPrefix(dataset)}versions/`)) versions++;
  }
  return {
    collection: store.locate(collectionKey(dataset)),
    items,
    versions,
    written: 0,
    bytes_written: 0,
    unchanged: objects,
    deleted: 0,
  };
}

/**
 * The version of the object this run found under the key (undefined: none), and whether it already has these
 * bytes. Where the store predicts versions (fs, memory, S3) the version settles it; where versions are opaque
 * (Azure), a listed version that the last run recorded for these very bytes does.
 */
async function same(
  store: ObjectStore,
  key: string,
  bytes: Uint8Array,
  sha256: string,
  existing: Map<string, string | undefined>,
  previous: CatalogState | undefined,
): Promise<{ version?: string; same: boolean }> {
  const version = existing.get(key);
  if (version === undefined) return { same: false };
  if (predictsVersions(store)) return { version, same: version === store.versionFor(bytes) };
  return { version, same: previous?.objects[key] === version && previous.hashes?.[key] === sha256 };
}

/**
 * Writes a catalog object only over the version this run found (create when it found none): a `stac` run that
 * another overtook (it re-promoted and rewrote the catalog meanwhile) stops instead of putting back older Items.
 * `found` null: the object was listed but its version cannot be read; then it is overwritten as before.
 */
async function guardedPut(
  store: ObjectStore,
  dataset: string,
  key: string,
  bytes: Uint8Array,
  found: string | null | undefined,
  contentType: string | undefined,
): Promise<string> {
  const mode = found === null ? "overwrite" : found === undefined ? "create" : { update: found };
  try {
    return (await store.put(key, bytes, { contentType, mode })).version;
  } catch (error) {
    if (
      error instanceof AlreadyExistsError ||
      error instanceof PreconditionFailedError ||
      error instanceof NotFoundError
    )
      throw overtaken(store, dataset, key);
    throw error;
  }
}

const overtaken = (store: ObjectStore, dataset: string, key: string) =>
  new StacError(
    `another stac run of ${dataset} wrote ${store.locate(key)} while this one ran: this run stopped rather than put back an older catalog. The catalog is as the newer run left it; run stac again to be sure it includes every promotion`,
  );

const json = (doc: unknown) => new TextEncoder().encode(`${JSON.stringify(doc, null, 2)}\n`);

/** A self link must be an absolute URL: a filesystem path becomes a file:// URL. */
function absoluteUrl(location: string): string {
  return location.startsWith("/") ? pathToFileURL(location).href : location;
}
