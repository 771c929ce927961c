import { randomUUID } from "node:crypto";
import { crsFromCode } from "../geo/crs.js";
import { GeometryValidator } from "../geo/validity.js";
import { GEOPARQUET_VERSION } from "../geoparquet/metadata.js";
import { writeGeoParquet, WRITER_ID } from "../geoparquet/write.js";
import { checkPlausibility, regionHistory } from "../manifest/checks.js";
import type { KnownManifest } from "../manifest/checks.js";
import { readManifest } from "../manifest/codec.js";
import { outboxId } from "../manifest/outbox.js";
import type { OutboxEvent } from "../manifest/outbox.js";
import type { Manifest, ManifestEntry } from "../manifest/types.js";
import { isStoreTransient, isStoreUnusable, NotFoundError } from "../store/errors.js";
import { probeStore } from "../store/probe.js";
import { redact } from "../store/secrets.js";
import type { ObjectStore } from "../store/types.js";
import { inspectArtifact } from "./artifact.js";
import type { ArtifactFacts } from "./artifact.js";
import type { ArtifactIndex } from "./artifact-index.js";
import { ComputeOutputError, tableFromCompute } from "./compute-output.js";
import { fingerprint } from "./fingerprint.js";
import { publishAndPromote } from "./publish.js";
import { concreteDatasetInput, isDatasetInput, UpstreamMissingError } from "./dataset-input.js";
import { resolveInput } from "./identity.js";
import { memoized } from "./memo.js";
import type { ResolvedInput } from "./identity.js";
import { artifactKey, checkPartition, manifestKey, manifestPrefix, tempKey } from "../manifest/layout.js";
import { resolvePins } from "./pins.js";
import type { VersionsFile } from "./pins.js";
import type { Partition, TaskDefinition } from "./task.js";

/**
 * - promoted: computed, validated, published, and the manifest now points at it
 * - reconciled: the artifact already existed (work skipped); the manifest was pointed at it
 * - unchanged: the manifest already pointed at these exact bytes; nothing was written
 * - superseded: another run promoted first; this run changed nothing
 * - invalid: validation or plausibility refused the result; nothing was published
 * - blocked: an upstream dataset's partition it reads is not promoted yet; nothing was written (exit 75: later)
 * - failed: anything else went wrong; nothing half-done is visible
 */
export type Outcome = "promoted" | "reconciled" | "unchanged" | "superseded" | "invalid" | "blocked" | "failed";

/** Exit code per outcome (README "Exit codes"). */
export const OUTCOME_EXIT: Record<Outcome, number> = { promoted: 0, reconciled: 0, unchanged: 0, superseded: 4, invalid: 1, blocked: 75, failed: 5 };

export interface RefreshResult {
  partition: Partition;
  outcome: Outcome;
  runId: string;
  key?: string;
  sha256?: string;
  rows?: number;
  message: string;
  /** Set when a `failed` outcome came from the store itself (unreachable, credentials, bucket, capability). */
  storeProblem?: true;
  /** With storeProblem: the store was unreachable or kept failing; running again later may succeed (exit 75). */
  transient?: true;
  /** The partition's manifest as this run left or found it (promoted, reconciled, unchanged). */
  manifest?: { key: string; version: string; current: ManifestEntry };
}

export interface RefreshOptions {
  store: ObjectStore;
  task: TaskDefinition;
  partition: Partition;
  versions: VersionsFile;
  params?: Record<string, unknown>;
  validator?: GeometryValidator;
  /** Promote even when plausibility objects; recorded in the manifest entry. */
  overridePlausibility?: boolean;
  runId?: string;
  /** Input identities shared by the partitions of one run, so each input is identified once, at run start. */
  inputCache?: Map<string, Promise<ResolvedInput>>;
  /** A backfill's listing of the artifacts it may find (S3), so settled partitions skip their HEAD. */
  artifactIndex?: ArtifactIndex;
  /** Manifests the run already knows by version, so the plausibility history need not fetch them again. */
  knownManifests?: ReadonlyMap<string, KnownManifest>;
  /**
   * The partition's manifest as a dispatcher read it when this partition's run started (null: there was none),
   * so the run need not read it again; it is still the only version the promotion may replace.
   */
  start?: ManifestAtStart | null;
}

export type ManifestAtStart = { manifest: Manifest; version: string };

export class RefreshError extends Error {
  constructor(
    message: string,
    readonly outcome: "invalid" | "failed",
    readonly storeProblem = false,
    readonly transient = false,
  ) {
    super(message);
    this.name = "RefreshError";
  }
}

/** Stores that passed the capability probe in this process. */
const probed = new Map<string, Promise<void>>();

async function ensureProbed(store: ObjectStore): Promise<void> {
  let p = probed.get(store.url);
  if (!p) {
    p = probeStore(store).then((report) => {
      if (!report.ok) {
        const failed = report.checks.find((c) => !c.ok);
        throw new RefreshError(`refusing to promote on ${store.url}: ${failed?.name}: ${failed?.detail}`, "failed", true, failed?.code === "Unavailable");
      }
    });
    probed.set(store.url, p);
    p.catch(() => probed.delete(store.url));
  }
  return p;
}

/** Steps 1–2 and the manifest as found at run start: everything a run decides from before any work. */
export async function plan(opts: RefreshOptions) {
  const { store, task, partition } = opts;
  checkPartition(partition);
  const storage = crsFromCode(task.storageCrs ?? "OGC:CRS84");
  const params = { ...(task.params ?? {}), ...(opts.params ?? {}) };
  // 1. Resolve: pins for the logical date, inputs with their content identity (read once, now).
  const pins = resolvePins(opts.versions, task.pins ?? [], partition.date);
  const inputs: Record<string, ResolvedInput> = Object.fromEntries(
    await Promise.all(
      Object.entries(task.inputs(partition)).map(async ([name, given]) => {
        // `dataset:<name>` means this partition's region and date: made explicit, it is also the cache key.
        const uri = isDatasetInput(given) ? concreteDatasetInput(given, partition) : given;
        let resolved = opts.inputCache?.get(uri);
        if (!resolved) {
          resolved = resolveInput(uri, { store });
          opts.inputCache?.set(uri, resolved);
        }
        return [name, await resolved] as const;
      }),
    ),
  );
  // 2. Fingerprint.
  const key = fingerprint({
    task: { name: task.name, version: task.version },
    partition,
    params,
    inputs: Object.fromEntries(Object.entries(inputs).map(([n, i]) => [n, i.identity])),
    pins,
    writer: { id: WRITER_ID, format: `geoparquet-${GEOPARQUET_VERSION}`, storageCrs: storage.id },
  });
  const mKey = manifestKey(partition);
  const aKey = artifactKey(partition, key);
  // The manifest version captured here (or by the dispatcher, moments ago) is the only one this run may replace.
  const start = opts.start !== undefined ? (opts.start ?? undefined) : await readManifest(store, mKey);
  return { storage, params, pins, inputs, key, mKey, aKey, start };
}

/**
 * The no-op path: when the manifest already names this key, one GET (manifest) and one HEAD (artifact) settle the
 * partition. Returns undefined when there is work to do.
 */
/** Whether the planned artifact is stored: from the backfill's listing where it has one, else asked directly. */
export function artifactExists(opts: RefreshOptions, aKey: string): Promise<boolean> {
  return opts.artifactIndex ? opts.artifactIndex.exists(opts.partition, aKey) : opts.store.exists(aKey);
}

async function alreadyCurrent(opts: RefreshOptions, p: Awaited<ReturnType<typeof plan>>, result: (o: Outcome, m: string, e: Partial<RefreshResult>) => RefreshResult) {
  const { store } = opts;
  const current = p.start?.manifest.current;
  if (current?.key !== p.key) return undefined;
  if (!(await artifactExists(opts, p.aKey))) {
    throw new RefreshError(`${store.locate(p.mKey)} points at ${store.locate(p.aKey)}, which is missing; nothing was changed. Restore the artifact, or delete the manifest to rebuild the partition`, "failed");
  }
  const manifest = { key: p.mKey, version: (p.start as { version: string }).version, current };
  return result("unchanged", `already current: ${p.aKey}`, { key: p.key, sha256: current.sha256, rows: current.rows, manifest });
}

/**
 * The cheap first half of a refresh, for a dispatcher: `settled` when nothing needs doing; otherwise the manifest
 * as found (null when absent) to hand to the run that does the work. Empty on any error: the full refresh then
 * reports it properly.
 */
export async function quickCheck(opts: RefreshOptions): Promise<{ settled?: RefreshResult; start?: ManifestAtStart | null }> {
  const runId = opts.runId ?? randomUUID();
  try {
    const p = await plan(opts);
    const settled = await alreadyCurrent(opts, p, (outcome, message, extra) => ({ partition: opts.partition, outcome, runId, message, ...extra }));
    return settled ? { settled } : { start: p.start ?? null };
  } catch {
    return {};
  }
}

/** The protocol (docs/protocol.md, steps 1–8) for one partition. Never throws for task problems. */
export async function refreshPartition(opts: RefreshOptions): Promise<RefreshResult> {
  const runId = opts.runId ?? randomUUID();
  const partition = opts.partition;
  const result = (outcome: Outcome, message: string, extra: Partial<RefreshResult> = {}): RefreshResult => ({ partition, outcome, runId, message, ...extra });
  const ownValidator = opts.validator === undefined;
  const validator = opts.validator ?? new GeometryValidator({ threads: 0 });
  let temp: string | undefined;
  try {
    const { store, task } = opts;
    const planned = await plan(opts);
    const { storage, params, pins, inputs, key, mKey, aKey, start } = planned;
    const unchanged = await alreadyCurrent(opts, planned, result);
    if (unchanged) return unchanged;
    // Before writing anything: a store that ignores conditional writes must not receive a single artifact.
    await ensureProbed(store);

    // 3. Skip the work when the artifact exists; its bytes are still checked before the manifest points at it.
    let facts: ArtifactFacts;
    let reconciled = false;
    let plausibility: ManifestEntry["plausibility"];
    // Plausibility against history; the same judgement whether the bytes were just computed or found, so a run
    // that resumes after a crash records exactly what an uninterrupted one would.
    const judge = async (f: ArtifactFacts): Promise<ManifestEntry["plausibility"]> => {
      const rules = { window: 7, rowTolerance: 0.5, areaTolerance: 0.2, minRows: 1, ...(task.plausibility ?? {}) };
      const history = [...(start?.manifest.current ? [start.manifest.current] : []), ...(await regionHistory(store, manifestPrefix(partition.dataset, partition.region), partition.date, rules.window, opts.knownManifests))];
      const verdict = checkPlausibility({ rows: f.rows, areaM2: f.areaM2, history, rules, override: Boolean(opts.overridePlausibility), pins, codeVersion: `${task.name}@${task.version}` });
      if (!verdict.ok) {
        throw new RefreshError(`implausible result for ${partition.dataset} ${partition.region} ${partition.date}: ${verdict.notes.join("; ")}; nothing was published (rerun with --override-plausibility to accept it)`, "invalid");
      }
      return { status: verdict.status, ...(verdict.notes.length ? { notes: verdict.notes } : {}) };
    };
    const existing = await store.get(aKey).catch((e: unknown) => (e instanceof NotFoundError ? undefined : Promise.reject(e)));
    let bytes: Uint8Array;
    if (existing) {
      reconciled = true;
      bytes = existing.body;
      facts = await inspectArtifact(existing.body, store.locate(aKey), storage, validator);
      if (facts.problems.length) throw new RefreshError(`existing artifact ${store.locate(aKey)} fails validation: ${facts.problems.join("; ")}`, "invalid");
      plausibility = await judge(facts);
    } else {
      // Compute, reproject to the storage CRS, write.
      const ctx = { partition, pins, params, memo: <T>(name: string, request: unknown, call: () => Promise<T>) => memoized(store, task.name, name, request, call), input: async (name: string) => {
        const input = inputs[name];
        if (!input) throw new RefreshError(`task ${task.name} asked for input '${name}', which inputs() did not declare`, "failed");
        return input.read();
      } };
      const { table, stats } = await tableFromCompute(task.compute(ctx), { columns: task.columns, from: crsFromCode(task.crs), to: storage }).catch((error: unknown) => {
        if (error instanceof ComputeOutputError) throw new RefreshError(`${task.name} for ${partition.region} ${partition.date}: ${error.message}; nothing was published`, "invalid");
        throw error;
      });
      const written = await writeGeoParquet(table, { crs: storage, idColumn: task.idColumn, stats });
      // 4. Write aside.
      temp = tempKey(partition, runId, key);
      await store.put(temp, written.bytes, { mode: "create" });
      // 5. Validate what was written, as read back from the store.
      bytes = (await store.get(temp)).body;
      facts = await inspectArtifact(bytes, store.locate(temp), storage, validator);
      if (facts.problems.length) throw new RefreshError(`validation failed for ${partition.dataset} ${partition.region} ${partition.date}: ${facts.problems.join("; ")}`, "invalid");
      plausibility = await judge(facts);
    }

    const entry: ManifestEntry = {
      key,
      artifact: aKey,
      sha256: facts.sha256,
      bytes: facts.bytes,
      rows: facts.rows,
      bbox: facts.bbox,
      crs: facts.crs,
      geometry_types: facts.geometryTypes,
      columns: facts.columns,
      area_m2: facts.areaM2,
      pins,
      inputs: Object.fromEntries(Object.entries(inputs).map(([n, i]) => [n, { uri: redact(i.uri), identity: i.identity }])),
      code_version: `${task.name}@${task.version}`,
      run_id: runId,
      logical_date: partition.date,
      promoted_at: new Date().toISOString(),
      plausibility,
    };
    const event: OutboxEvent = {
      id: outboxId(partition.dataset, partition.region, partition.date, facts.sha256),
      dataset: partition.dataset,
      region: partition.region,
      logical_date: partition.date,
      artifact: store.locate(aKey),
      sha256: facts.sha256,
      rows: facts.rows,
      previous_sha256: start?.manifest.current?.sha256 ?? null,
    };
    const { outcome: promoted, base } = await publishAndPromote(store, { partition, mKey, aKey, start, entry, event, bytes, published: reconciled });
    const extra = { key, sha256: facts.sha256, rows: facts.rows };
    if (promoted.outcome === "unchanged") {
      const manifest = { key: mKey, version: promoted.version ?? (base as { version: string }).version, current: promoted.current };
      return result("unchanged", `manifest already points at these bytes (run ${promoted.current.run_id})`, { ...extra, manifest });
    }
    if (promoted.outcome === "superseded") return result("superseded", `another run promoted first (${promoted.current?.sha256.slice(0, 12) ?? "?"} by run ${promoted.current?.run_id ?? "?"}); this run changed nothing`, extra);
    const manifest = { key: mKey, version: promoted.version, current: entry };
    return result(reconciled ? "reconciled" : "promoted", `${reconciled ? "pointed the manifest at existing" : "published"} ${aKey} (${facts.rows} rows)`, { ...extra, manifest });
  } catch (error) {
    if (error instanceof RefreshError) return result(error.outcome, error.message, error.storeProblem ? { storeProblem: true, ...(error.transient ? { transient: true } : {}) } : {});
    if (error instanceof UpstreamMissingError) return result("blocked", error.message);
    // Typed input, pin, name and store errors carry their own "what and where"; keep them as they are.
    const storeProblem = isStoreUnusable(error);
    return result("failed", error instanceof Error ? error.message : String(error), storeProblem ? { storeProblem: true, ...(isStoreTransient(error) ? { transient: true } : {}) } : {});
  } finally {
    // 8. Clean up the temp key (gc removes any a crash left behind).
    if (temp) await opts.store.delete(temp).catch(() => undefined);
    if (ownValidator) await validator.close();
  }
}
