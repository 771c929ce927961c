import { outboxId } from "../manifest/outbox.js";
import type { OutboxEvent } from "../manifest/outbox.js";
import type { ChangesRecord, ManifestEntry } from "../manifest/types.js";
import type { TaskDefinition } from "../task/task.js";
import { redact } from "../store/secrets.js";
import type { Changed } from "./change-set.js";
import type { Verified } from "./verify.js";
import { warnHivePartitionColumns } from "../task/task.js";

/** A verified artifact with the manifest entry and the outbox event it is published with. */
export interface Recorded {
  verified: Verified;
  entry: ManifestEntry;
  event: OutboxEvent;
  /** The changelog's bytes, published with the artifact (keyed tasks). */
  changelog?: Uint8Array;
}

/** Whether the outbox announces this change set key by key: events "changes", and a first version only if asked. */
function announces(task: TaskDefinition, record: ChangesRecord): boolean {
  return task.events === "changes" && (record.against !== null || task.initialEvents === true);
}

/** The manifest entry and the outbox event a verified artifact is published with (steps 6–7 of docs/protocol.md). */
export function recordOf({ verified, changes }: Changed): Recorded {
  const { facts, plausibility } = verified;
  const { plan } = verified.produced;
  const { runId } = plan;
  const { store, task, partition } = plan.options;
  warnHivePartitionColumns(
    task.name,
    facts.columns.map((c) => c.name),
  );
  const entry: ManifestEntry = {
    key: plan.key,
    artifact: plan.aKey,
    sha256: facts.sha256,
    bytes: facts.bytes,
    rows: facts.rows,
    bbox: facts.bbox,
    crs: facts.crs,
    geometry_types: facts.geometryTypes,
    columns: facts.columns,
    area_m2: facts.areaM2,
    pins: plan.pins,
    inputs: Object.fromEntries(
      Object.entries(plan.inputs).map(([n, i]) => [n, { uri: redact(i.uri), identity: i.identity }]),
    ),
    code_version: `${task.name}@${task.version}`,
    run_id: runId,
    logical_date: partition.date,
    promoted_at: new Date().toISOString(),
    plausibility,
    ...(changes ? { changes: changes.record } : {}),
    ...(facts.dropped ? { dropped: facts.dropped } : {}),
  };
  const event: OutboxEvent = {
    id: outboxId(partition.dataset, partition.region, partition.date, facts.sha256),
    dataset: partition.dataset,
    region: partition.region,
    logical_date: partition.date,
    artifact: store.locate(plan.aKey),
    sha256: facts.sha256,
    rows: facts.rows,
    previous_sha256: plan.start?.manifest.current?.sha256 ?? null,
    ...(changes && announces(task, changes.record)
      ? {
          changes: {
            changelog: changes.record.changelog,
            sha256: changes.record.sha256,
            keys: changes.keys,
            against: changes.record.against,
          },
        }
      : {}),
  };
  return { verified, entry, event, ...(changes ? { changelog: changes.bytes } : {}) };
}
