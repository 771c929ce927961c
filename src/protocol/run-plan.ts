import { storageCrsOf } from "../geo/crs/crs.js";
import { DEFAULT_FORMAT, FORMAT_VERSION } from "../geoparquet/metadata.js";
import { WRITER_ID } from "../geoparquet/write.js";
import { readManifest } from "../manifest/codec.js";
import { regionHistory } from "../manifest/checks.js";
import { artifactKey, checkPartition, manifestKey, manifestPrefix } from "../manifest/layout.js";
import type { ManifestEntry } from "../manifest/types.js";
import type { Partition } from "../manifest/layout.js";
import type { ObjectStore } from "../store/types.js";
import { concreteDatasetInput, isDatasetInput } from "../inputs/dataset-input.js";
import { fingerprint } from "./fingerprint.js";
import { absentInput, InputMissingError, keyedIdentity, resolveInput } from "../inputs/resolve.js";
import type { ResolvedInput } from "../inputs/identity.js";
import { resolvePins } from "../calendar/pins.js";
import type { ManifestAtStart, RefreshOptions, RunContext } from "./refresh-types.js";

export type { ManifestAtStart } from "./refresh-types.js";
import type { ProvenCurrent } from "../manifest/snapshot-commit.js";

/** Steps 1–2 of docs/protocol.md and the manifest as found at run start: all a run decides from before any work. */
export interface RunPlan {
  /** What the caller asked for: read by the later stages, each through the value before it. */
  options: RefreshOptions;
  runId: string;
  storage: ReturnType<typeof storageCrsOf>;
  params: Record<string, unknown>;
  pins: Record<string, string>;
  inputs: Record<string, ResolvedInput>;
  /** The artifact's content-addressed key. */
  key: string;
  mKey: string;
  aKey: string;
  /** The only manifest version this run may replace (undefined: there was none, or `proven` settles the run). */
  start: ManifestAtStart | undefined;
  /** A partial payload's previous version: the region's latest before this date (undefined: none, or complete). */
  base?: ManifestEntry;
  /** Set when a snapshot and a listing prove the manifest already names `key`: the run settles without a GET. */
  proven?: ProvenCurrent;
}

export async function planRun(opts: RefreshOptions, run: RunContext = {}, runId = ""): Promise<RunPlan> {
  const { store, task, partition } = opts;
  checkPartition(partition);
  const storage = storageCrsOf(task.storageCrs ?? "OGC:CRS84");
  const params = { ...(task.params ?? {}), ...(opts.params ?? {}) };
  // 1. Resolve: pins for the logical date, inputs with their content identity (read once, now).
  const pins = resolvePins(opts.versions, task.pins ?? [], partition.date);
  const inputs = await resolveInputs(store, task, partition, run);
  // A delta feed applies to the region's previous version, which is then an input like any other.
  const base =
    task.payload === "partial"
      ? (await regionHistory(store, manifestPrefix(partition.dataset, partition.region), partition.date, 1))[0]
      : undefined;
  // 2. Fingerprint.
  const key = fingerprint({
    task: { name: task.name, version: task.version },
    partition,
    params,
    inputs: Object.fromEntries(Object.entries(inputs).map(([n, i]) => [n, keyedIdentity(i)])),
    pins,
    // A key orders ties and adds a changelog; only tasks that name one carry it, so other keys stay as they were.
    ...(task.key ? { rowKey: task.key } : {}),
    ...(task.payload === "partial" ? { base: base?.sha256 ?? null } : {}),
    writer: {
      id: WRITER_ID,
      format: `geoparquet-${FORMAT_VERSION[task.format ?? DEFAULT_FORMAT]}`,
      storageCrs: storage.id,
    },
  });
  const mKey = manifestKey(partition);
  const aKey = artifactKey(partition, key);
  const proven = run.proven?.get(mKey);
  if (proven?.key === key)
    return { options: opts, runId, storage, params, pins, inputs, key, mKey, aKey, start: undefined, proven, base };
  // The manifest version captured here (or by the dispatcher, moments ago) is the only one this run may replace.
  const start = run.start !== undefined ? (run.start ?? undefined) : await readManifest(store, mKey);
  return { options: opts, runId, storage, params, pins, inputs, key, mKey, aKey, start, base };
}

async function resolveInputs(
  store: ObjectStore,
  task: RefreshOptions["task"],
  partition: Partition,
  run: RunContext,
): Promise<Record<string, ResolvedInput>> {
  const cache = run.inputCache;
  const optional = new Set(task.optionalInputs ?? []);
  const entries = await Promise.all(
    Object.entries(task.inputs(partition)).map(async ([name, named]) => {
      // `dataset:<name>` means this partition's region and date: made explicit, it is also the cache key.
      const uri = isDatasetInput(named) ? concreteDatasetInput(named, partition) : named;
      let resolved = cache?.get(uri);
      if (!resolved) {
        resolved = resolveInput(uri, { store, allowHosts: task.allowHosts, prepared: run.prepared?.get(uri) });
        cache?.set(uri, resolved);
      }
      if (!optional.has(name)) return [name, await resolved] as const;
      // An optional input that is not there is keyed as absent: its appearing later makes a new key.
      const found = await resolved.catch((error: unknown) => {
        if (error instanceof InputMissingError) return absentInput(uri);
        throw error;
      });
      return [name, found] as const;
    }),
  );
  return Object.fromEntries(entries);
}
