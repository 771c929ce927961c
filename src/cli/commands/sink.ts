import type { Command } from "commander";
import { loadScheme } from "../../store/backends.js";
import { SnapshotError } from "../../manifest/snapshot.js";
import { readPointer } from "../../manifest/snapshot.js";
import { sinkDataset } from "../../sinks/run-sink.js";
import type { SinkReport } from "../../sinks/run-sink.js";
import { openDataset } from "../../views/reader.js";
import type { Dataset, DatasetView } from "../../views/reader.js";
import { action } from "../action.js";
import { EXIT } from "../exit-codes.js";
import { DESCRIPTIONS } from "../descriptions.js";
import { CONFIG_HELP, datasetOf, openConfig, UsageError } from "../context.js";
import type { CommonOptions } from "../context.js";
import { err, out, partitions, printJson } from "../output.js";
import { stepProgress } from "../progress.js";

type Opts = CommonOptions & { to: string; snapshot?: string; table?: string; dryRun?: boolean; quiet?: boolean };

export function registerSink(program: Command): void {
  program
    .command("sink")
    .description(DESCRIPTIONS.sink)
    .argument("<dataset>")
    .requiredOption(
      "--to <url>",
      "a GeoPackage path (out/parcels.gpkg; made when missing), or postgresql://user@host:port/database?schema=name (the password from PGPASSWORD or ~/.pgpass; PG* variables fill what the URL leaves out)",
    )
    .option(
      "--snapshot <id>",
      "the snapshot to apply: an id, or latest (default: latest; the current manifests when none is committed)",
    )
    .option("--table <name>", "the table (default: the config's sink.table, else the dataset's name with - and . as _)")
    .option("--dry-run", "say what would be applied; read no artifact, change nothing")
    .option("--config <path>", CONFIG_HELP, "georefresh.config.json")
    .option("--store <url>", "override the config's store")
    .option("--json", "machine-readable output")
    .option("--quiet", "print nothing but errors")
    .addHelpText(
      "after",
      `
A keyed dataset (its task names a key) becomes one row per (region, key) at the region's latest logical date:
unchanged rows are not touched, changed ones updated, new ones inserted, keys gone retired (retired_at), never
deleted. A dataset without a key holds every partition; a changed partition is replaced whole. Everything
happens in one transaction; a partition already applied at its version is never read. docs/sinks.md.

  georefresh sink us-counties --to us-counties.gpkg
  georefresh sink us-counties --to "postgresql://me@localhost/gis?schema=georefresh"
  PGPASSWORD=… georefresh sink parcels --to postgresql://etl@db.internal:5432/gis --snapshot latest --json

Exit codes: 0 applied (or nothing to apply); 1 a partition was refused (duplicate keys, a row count unlike its
manifest's, a changed column type): nothing was applied; 2 usage (a --to that is neither, a schema PostgreSQL
cannot take); 3 the database refused the login or the GeoPackage cannot be opened; 75 the database was down,
restarting, out of connections or locked by another program: nothing was changed, run again later.`,
    )
    .action(
      action(async (name: string, opts: Opts) => {
        const config = await openConfig(opts);
        const entry = datasetOf(config, name);
        await loadScheme(config.store);
        const ds = openDataset(config.store, name);
        try {
          const view = await viewOf(ds, opts);
          const step = stepProgress(`sink ${name}`, Boolean(opts.json), Boolean(opts.quiet));
          const report = await sinkDataset({
            view,
            key: entry.task.key ?? [],
            to: opts.to,
            table: opts.table ?? entry.sink.table,
            history: entry.sink.history,
            dryRun: opts.dryRun,
            onPartition: (_p, _c, done, of) => step(done, of),
            onWait: (why) => void (opts.json || opts.quiet ? undefined : err(`georefresh: ${why}\n`)),
          });
          if (opts.json) printJson({ ok: true, ...report });
          else if (!opts.quiet) out(`${outcomeLine(report)}\n`);
        } finally {
          await ds.store.close();
        }
        return EXIT.ok;
      }),
    );
}

/** A committed snapshot by default; with none committed yet, the current manifests (said on stderr). */
async function viewOf(ds: Dataset, opts: Opts): Promise<DatasetView> {
  const id = opts.snapshot ?? "latest";
  if (id !== "latest" && !/^[0-9a-f]{16}$/.test(id))
    throw new UsageError(`--snapshot ${id}: give a snapshot id (16 hex digits, as ls --json shows) or latest`);
  if (id === "latest" && !(await readPointer(ds.store, ds.name))) {
    const view = await ds.current();
    if (view.partitions.length === 0)
      throw new SnapshotError(
        `${ds.name} has no promoted partition: run georefresh backfill --dataset ${ds.name} first`,
      );
    if (!opts.quiet && !opts.json)
      err(
        `georefresh: ${ds.name} has no committed snapshot yet: applying the current manifests (${partitions(view.partitions.length)}). A backfill over every region, or finalize, commits one.\n`,
      );
    return view;
  }
  return ds.snapshot(id);
}

function outcomeLine(r: SinkReport): string {
  const p = r.partitions;
  const what = `${r.dataset} → ${r.to} table ${r.table} (${r.view})`;
  if (r.dryRun)
    return `dry run: ${what}: would apply ${partitions(p.applied)}, ${p.unchanged} unchanged${p.gone ? `, ${p.gone} gone from the view` : ""}; nothing changed`;
  const n = r.rows;
  return `sink ${what}: ${partitions(p.applied)} applied, ${p.unchanged} unchanged${p.gone ? `, ${p.gone} gone from the view` : ""}; rows ${n.inserted} inserted, ${n.updated} updated, ${n.unchanged} unchanged, ${n.retired} retired${n.deleted ? `, ${n.deleted} replaced` : ""}`;
}
