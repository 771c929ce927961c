import type { ObjectStore } from "../store/types.js";
import type { DatasetView, ViewPartition } from "../views/reader.js";
import { openArtifactRows } from "./artifact-rows.js";
import { deltaOf } from "./delta.js";
import { timed } from "../stage-times.js";
import { sinkKindFor } from "./kinds.js";
import { Loader } from "./loader.js";
import { planSink } from "./plan.js";
import type { AppliedPartition, SinkPlan } from "./plan.js";
import type { ApplyCounts, SinkTableShape } from "./sink.js";
import { quoteIdent, tableNameFor } from "./sql-names.js";

export interface SinkOptions {
  /** The view to apply (a snapshot, or the current manifests). */
  view: DatasetView;
  /** The dataset's natural key (empty: every partition is applied as a whole). */
  key: string[];
  /** A PostgreSQL URL or a GeoPackage path. */
  to: string;
  /** The table's name (default: the dataset's, lower case, `-` and `.` as `_`). */
  table?: string;
  /** Keyed datasets: also keep `<table>_history`, one row per (region, key, valid_from) applied (PostGIS). */
  history?: boolean;
  /** Plan only: say what would be applied, read no artifact, change nothing. */
  dryRun?: boolean;
  /** Called after each partition is applied (inside the transaction: nothing is visible before the end). */
  onPartition?: (p: ViewPartition, counts: ApplyCounts, done: number, of: number) => void;
  /** Said once when the database is held by another sink or program and this one waits for it. */
  onWait?: (why: string) => void;
}

export interface SinkReport {
  dataset: string;
  /** The database, as messages show it (never a password). */
  to: string;
  table: string;
  /** "snapshot <id>" or "current". */
  view: string;
  run: string;
  dryRun: boolean;
  partitions: { applied: number; unchanged: number; gone: number };
  rows: ApplyCounts;
  /** Each partition applied, with what it did; `delta`: only its changelog's rows were read in. */
  applied: { region: string; date: string; sha256: string; delta: boolean; counts: ApplyCounts }[];
}

const zero = (): ApplyCounts => ({ inserted: 0, updated: 0, unchanged: 0, retired: 0, deleted: 0 });

/**
 * Applies a view of a dataset to a database table (docs/sinks.md): plan from the state table (one read), and
 * when anything differs, one transaction that holds the table against other sinks, re-plans under the lock (a
 * sink that waited finds its work done), reads only the partitions to apply, and records them.
 */
export async function sinkDataset(o: SinkOptions): Promise<SinkReport> {
  const dataset = o.view.dataset;
  const table = o.table ?? tableNameFor(dataset);
  quoteIdent(table, "table name");
  const keyed = o.key.length > 0;
  const kind = await sinkKindFor(o.to);
  const session = await kind.open(o.to, o.onWait ? { onWait: o.onWait } : {});
  try {
    const first = planSink(table, o.view.partitions, await session.applied(table), keyed);
    const report = (plan: SinkPlan, dryRun: boolean): SinkReport => ({
      dataset,
      to: session.where,
      table,
      view: o.view.source,
      run: plan.run,
      dryRun,
      partitions: { applied: plan.apply.length, unchanged: plan.unchanged.length, gone: plan.gone.length },
      // Rows of partitions the table already holds at the view's version: unchanged, and not even read.
      rows: { ...zero(), unchanged: dryRun ? 0 : plan.unchanged.reduce((n, p) => n + p.entry.rows, 0) },
      applied: [],
    });
    if (o.dryRun || (first.apply.length === 0 && first.gone.length === 0)) return report(first, Boolean(o.dryRun));
    const all = { dataset, region: "*", date: "*" };
    return await timed("sink: whole transaction (commit included)", all, () =>
      session.transaction(table, async (db) => {
        const before = await db.applied();
        const plan = planSink(table, o.view.partitions, before, keyed);
        const tx = new Loader(db, kind.capabilities, plan.run, Boolean(o.history), dataset);
        const out = report(plan, false);
        const held = new Map(before.map((a) => [a.region, a]));
        // A keyed region whose new version's changelog is against the version the table holds: only its changes.
        const open = async (p: ViewPartition) => {
          const delta =
            keyed && tx.deltas
              ? await timed("sink: changelog read (delta)", { dataset, region: p.region, date: p.date }, () =>
                  deltaOf(o.view.store, dataset, p, held.get(p.region), o.key),
                )
              : undefined;
          const rows = await timed(
            "sink: artifact opened (footer, first row group; beside the previous partition's load)",
            { dataset, region: p.region, date: p.date },
            () => openArtifactRows(o.view.store as ObjectStore, p.entry, o.key, delta?.upsert),
          );
          return { delta, rows };
        };
        let next = plan.apply[0] && open(plan.apply[0]);
        for (const [i, p] of plan.apply.entries()) {
          const { delta, rows } = await (next as ReturnType<typeof open>);
          // The next partition is opened (its changelog, footer and first row group read) while this one loads,
          // so the server ingests this one's last rows meanwhile; a failure there surfaces when it is awaited.
          next = plan.apply[i + 1] && open(plan.apply[i + 1] as ViewPartition);
          next?.catch(() => undefined);
          const shape: SinkTableShape = {
            dataset,
            key: o.key,
            columns: rows.columns,
            crs: p.entry.crs,
            hasZ: rows.hasZ,
            geometryTypes: rows.geometryTypes,
          };
          await tx.prepare(shape);
          const meta = {
            region: p.region,
            date: p.date,
            artifactKey: p.entry.artifact,
            sha256: p.entry.sha256,
            rows: delta ? delta.upsert.size : p.entry.rows,
          };
          const counts = await tx.apply(shape, meta, rows.batches(), delta);
          await tx.record(dataset, keyed, { region: p.region, date: p.date, sha256: p.entry.sha256 });
          for (const k of Object.keys(counts) as (keyof ApplyCounts)[]) out.rows[k] += counts[k];
          out.applied.push({
            region: p.region,
            date: p.date,
            sha256: p.entry.sha256,
            delta: delta !== undefined,
            counts,
          });
          o.onPartition?.(p, counts, out.applied.length, plan.apply.length);
        }
        const latest = o.view.partitions.reduce((d, p) => (p.date > d ? p.date : d), "");
        for (const g of plan.gone) {
          if (keyed) out.rows.retired += await tx.retireRegion(g.region, latest || g.date);
          else out.rows.deleted += await tx.removePartition(g.region, g.date);
          await tx.forget(keyed, g as AppliedPartition);
        }
        await tx.finish();
        return out;
      }),
    );
  } finally {
    await session.close();
  }
}
