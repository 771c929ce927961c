import { randomUUID } from "node:crypto";
import { GeometryValidator } from "../geo/validity.js";
import { WORLD_EDGE_TOLERANCE } from "../geo/wkb-rewrite.js";
import { GeorefreshError } from "../errors.js";
import { thrownAt } from "../task/thrown-at.js";
import { probeStore } from "../store/probe.js";
import type { ObjectStore } from "../store/types.js";
import { UpstreamMissingError } from "../inputs/dataset-input.js";
import { produce } from "./produce.js";
import { timed } from "../stage-times.js";
import { publish } from "./publish.js";
import type { Published } from "./publish.js";
import { changeSet, previousAhead } from "./change-set.js";
import { recordOf } from "./record.js";
import { RefreshError } from "./refresh-types.js";
import type { Outcome, RefreshOptions, RefreshResult, RunContext } from "./refresh-types.js";
import { planRun } from "./run-plan.js";
import type { ManifestAtStart, RunPlan } from "./run-plan.js";
import { verify } from "./verify.js";

export { OUTCOMES, RefreshError } from "./refresh-types.js";
export type { Outcome, RefreshOptions, RefreshResult, RunContext } from "./refresh-types.js";
import { recordRefused } from "./refuse.js";
import type { Ballpark } from "../manifest/ballpark.js";
export type { ManifestAtStart, RunPlan } from "./run-plan.js";
export { planRun } from "./run-plan.js";

type Result = (outcome: Outcome, message: string, extra?: Partial<RefreshResult>) => RefreshResult;

/** Stores that passed the capability probe in this process. */
const probed = new Map<string, Promise<void>>();

/** Before writing anything: a store that ignores conditional writes must not receive a single artifact. */
async function ensureProbed(store: ObjectStore): Promise<void> {
  let p = probed.get(store.url);
  if (!p) {
    p = probeStore(store).then((report) => {
      if (!report.ok) {
        const failed = report.checks.find((c) => !c.ok);
        throw new RefreshError(
          `refusing to promote on ${store.url}: ${failed?.name}: ${failed?.detail}`,
          "failed",
          failed?.code === "Unavailable" ? "Unavailable" : "Misconfigured",
        );
      }
    });
    probed.set(store.url, p);
    p.catch(() => probed.delete(store.url));
  }
  return p;
}

/** Whether the planned artifact is stored: from the backfill's listing where it has one, else asked directly. */
export function artifactExists(opts: RefreshOptions, run: RunContext, aKey: string): Promise<boolean> {
  return run.artifactIndex ? run.artifactIndex.exists(opts.partition, aKey) : opts.store.exists(aKey);
}

/**
 * Step 3, settle: when the manifest already names this key, one GET (manifest) and one existence check (artifact)
 * settle the partition. Undefined when there is work to do.
 */
async function settle(
  opts: RefreshOptions,
  run: RunContext,
  plan: RunPlan,
  result: Result,
): Promise<RefreshResult | undefined> {
  const current = plan.start?.manifest.current;
  if (current?.key !== plan.key && !plan.proven) return undefined;
  if (!(await artifactExists(opts, run, plan.aKey))) {
    throw new RefreshError(
      `${opts.store.locate(plan.mKey)} points at ${opts.store.locate(plan.aKey)}, which is missing; nothing was changed. Restore the artifact, or delete the manifest to rebuild the partition`,
      "failed",
    );
  }
  if (!current) {
    const { sha256, rows } = plan.proven as NonNullable<RunPlan["proven"]>;
    return result("unchanged", `already current (by the latest snapshot): ${plan.aKey}`, {
      key: plan.key,
      sha256,
      rows,
    });
  }
  const manifest = { key: plan.mKey, version: (plan.start as ManifestAtStart).version, current };
  return result("unchanged", `already current: ${plan.aKey}`, {
    key: plan.key,
    sha256: current.sha256,
    rows: current.rows,
    manifest,
  });
}

/**
 * The cheap first half of a refresh, for a dispatcher: `settled` when nothing needs doing; otherwise the manifest
 * as found (null when absent) to hand to the run that does the work. Empty on any error: the full refresh then
 * reports it properly.
 */
export async function quickCheck(
  opts: RefreshOptions,
  run: RunContext = {},
): Promise<{ settled?: RefreshResult; start?: ManifestAtStart | null; inputs?: RunPlan["inputs"] }> {
  const runId = opts.runId ?? randomUUID();
  try {
    const plan = await planRun(opts, run, runId);
    const settled = await settle(opts, run, plan, (outcome, message, extra) => ({
      partition: opts.partition,
      outcome,
      runId,
      message,
      ...extra,
    }));
    return settled ? { settled } : { start: plan.start ?? null, inputs: plan.inputs };
  } catch {
    return {};
  }
}

/**
 * The protocol of docs/protocol.md for one partition, as typed stages, each taking the value the one before
 * returned: plan → settle → produce (compute or reuse) → verify → record → publish and promote. The produced
 * artifact owns its staged bytes and temp key and releases them when the run ends, however it ends. Never throws
 * for task or store problems: the outcome says.
 */
export async function refreshPartition(opts: RefreshOptions, run: RunContext = {}): Promise<RefreshResult> {
  const runId = opts.runId ?? randomUUID();
  const { store, partition } = opts;
  const result: Result = (outcome, message, extra = {}) => ({ partition, outcome, runId, message, ...extra });
  const validator = opts.validator ?? new GeometryValidator({ threads: 0 });
  let plan: RunPlan | undefined;
  try {
    plan = await planRun(opts, run, runId);
    const settled = await settle(opts, run, plan, result);
    if (settled) return settled;
    await ensureProbed(store);
    // The previous version's digests, on a second thread while this one computes (keyed tasks only).
    const ahead = await previousAhead(plan, run);
    const produced = await produce(plan);
    try {
      const verified = await timed("read back, validate, digest", partition, () => verify(produced, validator, run));
      const changed = await timed("change set", partition, () => changeSet(verified, ahead));
      return outcomeOf(await timed("publish", partition, () => publish(recordOf(changed))), result);
    } finally {
      await produced.dispose();
    }
  } catch (error) {
    const failed = failure(error, result);
    return failed.outcome === "invalid" ? await recordRefused(opts, plan, failed) : failed;
  } finally {
    if (opts.validator === undefined) await validator.close();
  }
}

/** The run's outcome from what publishing came to. */
function outcomeOf({ recorded, promoted, base }: Published, result: Result): RefreshResult {
  const { entry } = recorded;
  const { produced } = recorded.verified;
  const { plan } = produced;
  const extra = {
    key: plan.key,
    sha256: entry.sha256,
    rows: entry.rows,
    ...(entry.dropped ? { dropped: entry.dropped.rows } : {}),
    ...(produced.snapped ? { snapped: produced.snapped } : {}),
    ...(produced.ballpark ? { ballpark: produced.ballpark.positions } : {}),
    ...(produced.linearized ? { linearized: produced.linearized } : {}),
  };
  if (promoted.outcome === "unchanged") {
    const manifest = {
      key: plan.mKey,
      version: promoted.version ?? (base as { version: string }).version,
      current: promoted.current,
    };
    return result("unchanged", `manifest already points at these bytes (run ${promoted.current.run_id})`, {
      ...extra,
      manifest,
    });
  }
  if (promoted.outcome === "superseded")
    return result(
      "superseded",
      `another run promoted first (${promoted.current?.sha256.slice(0, 12) ?? "?"} by run ${promoted.current?.run_id ?? "?"}); this run changed nothing`,
      extra,
    );
  const manifest = { key: plan.mKey, version: promoted.version, current: entry };
  const before = base?.manifest.current;
  if (!produced.reused && before && before.sha256 === entry.sha256)
    return result(
      "rekeyed",
      `the same bytes as before under a new key ${plan.key} (was ${before.key}): an input, pin or code version changed, no row did (${entry.rows} rows)`,
      { ...extra, manifest },
    );
  return result(
    produced.reused ? "reconciled" : "promoted",
    `${produced.reused ? "pointed the manifest at existing" : "published"} ${plan.aKey} (${entry.rows} rows${changesShown(entry)}${droppedShown(entry)}${snappedShown(produced.snapped)}${ballparkShown(produced.ballpark)}${linearizedShown(produced.linearized)})`,
    { ...extra, manifest },
  );
}

/** The rows the task dropped, for the outcome line: how many, and the first reason. */
export function droppedShown(entry: { dropped?: { rows: number; why: string[] } }): string {
  const d = entry.dropped;
  if (!d) return "";
  return `; ${d.rows} row${d.rows > 1 ? "s" : ""} dropped by the task: ${d.why[0] ?? ""}${d.rows > 1 ? ", …" : ""}`;
}

/** Coordinates put on the world's edge, for the outcome line. */
function snappedShown(count: number | undefined): string {
  if (!count) return "";
  return `; ${count} coordinate${count > 1 ? "s" : ""} within ${WORLD_EDGE_TOLERANCE}° past ±180°/±90° put on the world's edge`;
}

/** Curves read as straight segments, for the outcome line. */
function linearizedShown(count: number | undefined): string {
  if (!count) return "";
  return `; ${count} curve${count > 1 ? "s" : ""} read as straight segments, as OGR makes them`;
}

/** Positions read through PROJ's ballpark, for the outcome line. */
function ballparkShown(ballpark: Ballpark | undefined): string {
  if (!ballpark) return "";
  const n = ballpark.positions;
  return `; ${n} position${n > 1 ? "s" : ""} kept lon/lat across datums by PROJ's ballpark (${ballpark.datums.join(", ")}; tens to hundreds of metres off), as "datumShift": "ballpark" asked, recorded in the artifact`;
}

/** A keyed promotion's change counts, for its outcome line. */
function changesShown(entry: { changes?: { counts: Record<string, number> } }): string {
  const c = entry.changes?.counts;
  if (!c) return "";
  return `; ${c.added} added, ${c.removed} removed, ${c.geometry_changed} geometry changed, ${c.attributes_changed} attributes changed, ${c.unchanged} unchanged`;
}

/** A partition that failed before its run started (a dispatcher's download of its inputs), as its outcome. */
export function failedBeforeRun(partition: RefreshResult["partition"], runId: string, error: unknown): RefreshResult {
  return failure(error, (outcome, message, extra = {}) => ({ partition, outcome, runId, message, ...extra }));
}

/** Every failure as an outcome; typed input, pin, name and store errors carry their own "what and where". */
function failure(error: unknown, result: Result): RefreshResult {
  if (error instanceof RefreshError)
    return result(error.outcome, error.message, error.storeCode ? { code: error.storeCode } : {});
  if (error instanceof UpstreamMissingError) return result("blocked", error.message);
  // A task's own bug says where it was thrown, so the user can open the line (georefresh's errors say where already).
  const at = error instanceof GeorefreshError ? undefined : thrownAt(error);
  const message = error instanceof Error ? error.message : String(error);
  return result("failed", at ? `${message} (thrown at ${at})` : message, {
    ...(error instanceof GeorefreshError ? { code: error.code } : {}),
  });
}
