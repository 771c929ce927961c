import { createHash } from "node:crypto";
import { changelogOf, encodeChangelog } from "../changes/changelog.js";
import type { Side } from "../changes/changelog.js";
import { diffDigests } from "../changes/diff.js";
import { digestReady, RowDigester } from "../changes/row-digest.js";
import type { RowDigests } from "../changes/row-digest.js";
import { openRanged } from "../geoparquet/ranged-read.js";
import { changelogKey } from "../manifest/layout.js";
import type { ChangesRecord, ManifestEntry } from "../manifest/types.js";
import type { ObjectStore } from "../store/types.js";
import { storeSource } from "./produce.js";
import type { Verified } from "./verify.js";

/** The changelog file format: part of its key, so a new layout never collides with an old file. */
const CHANGELOG_FORMAT = "georefresh.changelog/1";

/** A verified artifact with its change set (a keyed task), ready to be recorded. */
export interface Changed {
  verified: Verified;
  /** The changelog to publish with the promotion and its record for the manifest entry; absent without a key. */
  changes?: { record: ChangesRecord; bytes: Uint8Array };
}

/**
 * The stage between verify and record, for tasks with a natural key: the change set against the partition's
 * previous state (the version this promotion supersedes, else the region's previous logical date), written as a
 * changelog. Both sides are read as digests, 24 bytes a row; rows are read again only where they changed.
 */
export async function changeSet(verified: Verified): Promise<Changed> {
  const { produced, facts } = verified;
  const { plan } = produced;
  const { store, task, partition } = plan.options;
  const key = task.key;
  if (!key || !facts.digests) return { verified };
  const current = plan.start?.manifest.current ?? undefined;
  const against = current ?? verified.previous;
  const chunkBytes = produced.budget.partBytes;
  const geometry = "geometry";
  const after: Side = {
    digests: facts.digests,
    open: () => openRanged(produced.source, produced.where, { chunkBytes }),
    geometry,
  };
  const before = against ? await sideOf(store, against, key, chunkBytes, geometry) : undefined;
  const diff = diffDigests(before?.digests, facts.digests);
  const log = await changelogOf(diff, key, before, after);
  const bytes = await encodeChangelog(log);
  const basis = before && against ? { logical_date: against.logical_date, sha256: against.sha256 } : null;
  const id = createHash("sha256")
    .update(JSON.stringify([CHANGELOG_FORMAT, basis?.sha256 ?? null, facts.sha256]))
    .digest("hex")
    .slice(0, 16);
  const record: ChangesRecord = {
    changelog: changelogKey(partition, id),
    sha256: createHash("sha256").update(bytes).digest("hex"),
    bytes: bytes.byteLength,
    key: [...key],
    against: basis,
    counts: diff.counts,
  };
  return { verified, changes: { record, bytes } };
}

/**
 * The previous version as one side of the change set, digested from the store. A version written before the
 * task had this key (the key's columns absent) has no rows to compare by: the change set is then a first version.
 */
async function sideOf(
  store: ObjectStore,
  entry: ManifestEntry,
  key: readonly string[],
  chunkBytes: number,
  geometry: string,
): Promise<Side | undefined> {
  if (!key.every((k) => entry.columns.some((c) => c.name === k))) return undefined;
  const where = store.locate(entry.artifact);
  const source = await storeSource(store, entry.artifact, chunkBytes, entry.bytes);
  const open = () => openRanged(source, where, { chunkBytes });
  const file = await open();
  await digestReady();
  const covering = file.geo.columns[file.geo.primary_column]?.covering?.bbox?.xmin?.[0];
  const digester = new RowDigester(
    { key, geometry: file.geo.primary_column, skip: covering ? [covering] : [] },
    file.rows,
  );
  for await (const g of file.rowGroups()) digester.group(g.table);
  const digests: RowDigests = digester.finish();
  return { digests, open, geometry };
}
