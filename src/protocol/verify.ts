import type { GeometryValidator } from "../geo/validity.js";
import { checkPlausibility, regionHistory } from "../manifest/checks.js";
import { manifestPrefix } from "../manifest/layout.js";
import type { ManifestEntry } from "../manifest/types.js";
import { inspectArtifact } from "./artifact.js";
import type { ArtifactFacts } from "./artifact.js";
import type { Produced } from "./produce.js";
import { RefreshError } from "./refresh-types.js";
import type { RunContext } from "./refresh-types.js";

export interface Verified {
  produced: Produced;
  facts: ArtifactFacts;
  plausibility: ManifestEntry["plausibility"];
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
  });
  if (facts.sha256 !== staged.sha256)
    facts.problems.push(
      `${produced.where} reads back as other bytes (sha256 ${facts.sha256.slice(0, 12)}) than were written (${staged.sha256.slice(0, 12)}): the store is corrupting data`,
    );
  if (facts.problems.length) {
    const what = produced.reused
      ? `existing artifact ${produced.where} fails validation`
      : `validation failed for ${partition.dataset} ${partition.region} ${partition.date}`;
    throw new RefreshError(`${what}: ${facts.problems.join("; ")}`, "invalid");
  }
  const rules = { window: 7, rowTolerance: 0.5, areaTolerance: 0.2, minRows: 1, ...(task.plausibility ?? {}) };
  const current = plan.start?.manifest.current;
  const history = [
    ...(current ? [current] : []),
    ...(await regionHistory(
      store,
      manifestPrefix(partition.dataset, partition.region),
      partition.date,
      rules.window,
      run.knownManifests,
    )),
  ];
  const verdict = checkPlausibility({
    rows: facts.rows,
    areaM2: facts.areaM2,
    history,
    rules,
    override: Boolean(opts.overridePlausibility),
    pins: plan.pins,
    codeVersion: `${task.name}@${task.version}`,
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
  };
}
