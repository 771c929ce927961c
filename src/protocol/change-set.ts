import { createHash } from "node:crypto";
import { changelogOf, encodeChangelog, encodeChangelogTable } from "../changes/changelog.js";
import type { Side } from "../changes/changelog.js";
import { storedSide } from "../changes/compare.js";
import { diffDigests } from "../changes/diff.js";
import type { DigestDiff } from "../changes/diff.js";
import { firstChangelogTable } from "../changes/first-changelog.js";
import { recentDigests } from "../changes/digest-cache.js";
import { digestAhead } from "../changes/side-ahead.js";
import type { SideAhead } from "../changes/side-ahead.js";
import { regionHistory } from "../manifest/checks.js";
import { manifestPrefix } from "../manifest/layout.js";
import { openRanged } from "../geoparquet/ranged-read.js";
import { changelogKey } from "../manifest/layout.js";
import type { ChangesRecord } from "../manifest/types.js";
import { RefreshError } from "./refresh-types.js";
import { timed } from "../stage-times.js";
import type { Verified } from "./verify.js";
import { memoryBudget } from "./memory-budget.js";
import type { RunContext } from "./refresh-types.js";
import type { RunPlan } from "./run-plan.js";

/** The changelog file format: part of its key, so a new layout never collides with an old file. */
const CHANGELOG_FORMAT = "georefresh.changelog/1";

/** A verified artifact with its change set (a keyed task), ready to be recorded. */
export interface Changed {
  verified: Verified;
  /** The changelog to publish with the promotion and its record for the manifest entry; absent without a key. */
  changes?: { record: ChangesRecord; bytes: Uint8Array; keys: number };
}

/**
 * Before produce, for tasks with a natural key: the version the change set will compare with (the partition's
 * current version, else the region's latest before this date, as verify finds it), digested on a worker thread
 * while this one computes (changes/side-ahead.ts). Undefined when there is none or it does not pay; never throws
 * (verify and changeSet look again, and say what is wrong).
 */
export async function previousAhead(plan: RunPlan, run: RunContext): Promise<SideAhead | undefined> {
  const { store, task, partition } = plan.options;
  if (!task.key) return undefined;
  try {
    const current = plan.start?.manifest.current ?? undefined;
    const against =
      current ??
      (
        await regionHistory(
          store,
          manifestPrefix(partition.dataset, partition.region),
          partition.date,
          1,
          run.knownManifests,
        )
      )[0];
    const ahead = against && digestAhead(store, against, task.key, memoryBudget(plan.options.maxMemory).partBytes);
    if (!ahead) return undefined;
    // Its own line in the stage times: it overlaps compute, sort and encode, on the other core.
    return { ...ahead, side: timed("previous version digested (second thread)", partition, () => ahead.side, false) };
  } catch {
    return undefined;
  }
}

/**
 * The stage between verify and record, for tasks with a natural key: the change set against the partition's
 * previous state (the version this promotion supersedes, else the region's previous logical date), written as a
 * changelog. Both sides are read as digests, 24 bytes a row; rows are read again only where they changed. `ahead`:
 * the previous state digested beforehand, used when it is the version this stage compares with.
 */
export async function changeSet(verified: Verified, ahead?: SideAhead): Promise<Changed> {
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
  const early = ahead && against && ahead.entry.sha256 === against.sha256 ? await ahead.side : undefined;
  const before = against ? (early ?? (await storedSide(store, against, key, chunkBytes))) : undefined;
  // A key column whose type changed (1 then "1") makes every row a new key: every key "removed" and "added", and
  // each sink retiring the region. Refused, as a sink refuses a column whose type changed.
  const was = before?.digests.keyTypes ?? [];
  const now = facts.digests.keyTypes;
  const moved = key.findIndex(
    (_, i) => was[i] !== undefined && now[i] !== undefined && keyFamily(was[i]) !== keyFamily(now[i]),
  );
  if (moved >= 0 && against)
    throw new RefreshError(
      `${partition.dataset} ${partition.region} ${partition.date}: key column ${JSON.stringify(key[moved])} is ${String(now[moved])} now but was ${String(was[moved])} on ${against.logical_date}, so no key would match its earlier self (1 and "1" are two keys); nothing was published; give the column one type (a source's "columns": { ${JSON.stringify(key[moved])}: { "type": "…" } }, or a cast in the task)`,
      "invalid",
    );
  recentDigests.put(facts.sha256, key, facts.digests, geometry); // the next date of this region compares with it
  // The first version: every row added, built as columns (a copy of the key, sorted, and constants).
  const first = before ? undefined : firstChangelogTable(facts.digests, key);
  const diff = first ? undefined : diffDigests(before?.digests, facts.digests);
  const counts = diff?.counts ?? {
    added: facts.digests.rows,
    removed: 0,
    geometry_changed: 0,
    attributes_changed: 0,
    unchanged: 0,
  };
  const bytes = first
    ? await encodeChangelogTable(first)
    : await encodeChangelog(await changelogOf(diff as DigestDiff, key, before, after));
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
    counts,
  };
  return { verified, changes: { record, bytes, keys: diff?.changes.length ?? facts.digests.rows } };
}

/**
 * A key type's family: integers of any width are one (a feed whose ids pass 2^31 widens to int64, and its keys
 * still compare equal), floats one, text one.
 */
function keyFamily(type: unknown): string {
  const name = String(type);
  if (/^u?int\d*$/i.test(name)) return "integer";
  if (/^float\d*$/i.test(name)) return "float";
  if (/^(large)?utf8$/i.test(name)) return "text";
  return name;
}
