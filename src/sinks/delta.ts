import { keyText, readChangelogKeys } from "../changes/change-items.js";
import { readManifest } from "../manifest/codec.js";
import { manifestKey } from "../manifest/layout.js";
import { sha256Hex } from "../store/digest.js";
import { getIfPresent } from "../store/get-if-present.js";
import type { ObjectStore } from "../store/types.js";
import type { ViewPartition } from "../views/reader.js";
import type { AppliedPartition } from "./plan.js";

/** What a keyed partition changed since the version a table holds, from its changelog (docs/changes.md). */
export interface Delta {
  /** The keys (as keyText) of rows added or changed: the only rows read into the table. */
  upsert: Set<string>;
  /** The key values of rows removed: retired. */
  removed: unknown[][];
  /** The partition's rows, changed or not. */
  total: number;
}

/**
 * The delta from the version the table holds for the region to the view's, when the view's version recorded a
 * changelog against exactly that version (the usual next date, or a correction); undefined otherwise, and the
 * whole partition is compared instead. The changelog is checked against the sha256 its manifest records.
 */
export async function deltaOf(
  store: ObjectStore,
  dataset: string,
  p: ViewPartition,
  held: AppliedPartition | undefined,
  key: readonly string[],
): Promise<Delta | undefined> {
  if (!held) return undefined;
  const found = await readManifest(store, manifestKey({ dataset, region: p.region, date: p.date }));
  const m = found?.manifest;
  const entry = m && [m.current, ...m.history].find((e) => e?.sha256 === p.entry.sha256);
  const changes = entry?.changes;
  if (!changes || changes.against?.sha256 !== held.sha256 || changes.key.join("\0") !== key.join("\0"))
    return undefined;
  // A changelog gone (gc) or altered: compare the whole partition instead, which needs none.
  const got = await getIfPresent(store, changes.changelog);
  if (!got || sha256Hex(got.body) !== changes.sha256) return undefined;
  const bytes = got.body;
  const upsert = new Set<string>();
  const removed: unknown[][] = [];
  for (const row of readChangelogKeys(bytes).rows)
    if (row.change === "removed") removed.push(row.key);
    else upsert.add(keyText(row.key));
  return { upsert, removed, total: p.entry.rows };
}
