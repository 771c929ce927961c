import { plain } from "../changes/canonical.js";
import { compareKeys } from "../changes/changelog.js";
import { equalKeys } from "../changes/diff.js";
import type { RowDigests } from "../changes/row-digest.js";
import { rowsAt } from "../changes/rows-at.js";
import type { GeometryValidator } from "../geo/validity.js";
import { openRanged } from "../geoparquet/ranged-read.js";
import type { RangedFile } from "../geoparquet/ranged-read.js";
import { bboxToLonLat } from "../geo/bbox.js";
import { checkPlausibility, regionHistory } from "../manifest/checks.js";
import { extentOf } from "../task/plausibility-rules.js";
import { manifestPrefix } from "../manifest/layout.js";
import type { ManifestEntry } from "../manifest/types.js";
import { inspectArtifact } from "./artifact.js";
import type { ArtifactFacts } from "./artifact.js";
import type { Produced } from "./produce.js";
import { redact } from "../store/secrets.js";
import { RefreshError } from "./refresh-types.js";
import type { RunContext } from "./refresh-types.js";

export interface Verified {
  produced: Produced;
  facts: ArtifactFacts;
  plausibility: ManifestEntry["plausibility"];
  /** The region's latest version before this logical date (a change set's previous state). */
  previous: ManifestEntry | undefined;
}

/**
 * Step 5 of docs/protocol.md: the bytes as the store holds them pass every check (CRS, every geometry, footer
 * bbox and types), then plausibility against the region's history. The same judgement whether the bytes were just
 * computed or reused, so a run that resumes after a crash records exactly what an uninterrupted one would.
 */
export async function verify(
  produced: Produced,
  validator: GeometryValidator,
  run: Pick<RunContext, "knownManifests">,
): Promise<Verified> {
  const { plan } = produced;
  const opts = plan.options;
  const { store, task, partition } = opts;
  const { staged } = produced;
  const facts = await inspectArtifact(produced.source, produced.where, plan.storage, validator, {
    chunkBytes: produced.budget.partBytes,
    key: task.key,
    ...(produced.rowName ? { rowName: produced.rowName } : {}),
  });
  if (facts.digests && task.key)
    facts.problems.push(
      ...(await keyProblems(facts.digests, task.key, () =>
        openRanged(produced.source, produced.where, { chunkBytes: produced.budget.partBytes }),
      )),
    );
  if (facts.sha256 !== staged.sha256)
    facts.problems.push(
      `${produced.where} reads back as other bytes (sha256 ${facts.sha256.slice(0, 12)}) than were written (${staged.sha256.slice(0, 12)}): the store is corrupting data`,
    );
  if (facts.problems.length) {
    // A source's file is named, so a refusal says where the rows came from, and its features as OGR numbers them
    // where the reader said (else rows are the artifact's, in its spatial order).
    const source = plan.inputs.source;
    const order = produced.rowName
      ? "features numbered as OGR counts them (FIDs)"
      : "rows counted in the artifact's spatial order";
    const from = source && !source.absent ? ` (read from ${redact(source.uri)}; ${order})` : "";
    const what = produced.reused
      ? `existing artifact ${produced.where} fails validation`
      : `validation failed for ${partition.dataset} ${partition.region} ${partition.date}${from}`;
    throw new RefreshError(`${what}: ${facts.problems.join("; ")}`, "invalid");
  }
  const { extent: _extents, ...numbers } = task.plausibility ?? {};
  const rules = { window: 7, rowTolerance: 0.5, areaTolerance: 0.2, minRows: 1, ...numbers };
  const extent = extentOf(task.plausibility, partition.region);
  const current = plan.start?.manifest.current;
  const earlier = await regionHistory(
    store,
    manifestPrefix(partition.dataset, partition.region),
    partition.date,
    rules.window,
    run.knownManifests,
  );
  const history = [...(current ? [current] : []), ...earlier];
  const verdict = checkPlausibility({
    rows: facts.rows,
    areaM2: facts.areaM2,
    history,
    rules,
    override: Boolean(opts.overridePlausibility),
    pins: plan.pins,
    codeVersion: `${task.name}@${task.version}`,
    ...(extent
      ? {
          extent: { region: partition.region, box: extent },
          lonLatBbox: facts.bbox && bboxToLonLat(facts.bbox, facts.crs),
        }
      : {}),
  });
  if (!verdict.ok) {
    throw new RefreshError(
      `implausible result for ${partition.dataset} ${partition.region} ${partition.date}: ${verdict.notes.join("; ")}; nothing was published (rerun with --override-plausibility to accept it)`,
      "invalid",
    );
  }
  return {
    produced,
    facts,
    plausibility: { status: verdict.status, ...(verdict.notes.length ? { notes: verdict.notes } : {}) },
    previous: earlier[0],
  };
}

/**
 * A natural key is unique and never null within a partition, as a database's unique constraint would have it:
 * the rows that break it, with their key values (equal key hashes are confirmed against the values).
 */
async function keyProblems(
  digests: RowDigests,
  key: readonly string[],
  open: () => Promise<RangedFile>,
): Promise<string[]> {
  const problems: string[] = [];
  const named = key.length > 1 ? `(${key.join(", ")})` : key[0];
  if (digests.nullKeys)
    problems.push(
      `${digests.nullKeys} row${digests.nullKeys > 1 ? "s have" : " has"} a null key ${named} (row${digests.nullKeyRows.length > 1 ? "s" : ""} ${digests.nullKeyRows.join(", ")}${digests.nullKeys > digests.nullKeyRows.length ? ", …" : ""})`,
    );
  const pairs = equalKeys(digests);
  if (!pairs.length) return problems;
  const seen = await rowsAt(await open(), pairs.flat(), key);
  const dupes = pairs.filter(([a, b]) => compareKeys(seen.rows.get(a)?.key ?? [], seen.rows.get(b)?.key ?? []) === 0);
  for (const [a, b] of dupes.slice(0, 10))
    problems.push(`duplicate key ${named} = ${JSON.stringify(plain(seen.rows.get(a)?.key))} in rows ${a} and ${b}`);
  if (dupes.length > 10) problems.push(`… ${dupes.length - 10} more duplicate keys`);
  return problems;
}
