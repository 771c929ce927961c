import { existsSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { Option } from "commander";
import type { Command } from "commander";
import { action } from "../action.js";
import { DESCRIPTIONS } from "../descriptions.js";
import { parseBbox } from "../../geo/bbox.js";
import { parseInstant } from "../../calendar/calendar.js";
import { decodeWkb } from "../../geo/wkb.js";
import { crsFromCode, CRS84_CRS, reproject } from "../../geo/crs.js";
import type { Crs } from "../../geo/crs.js";
import { openDataset } from "../../views/reader.js";
import { rowsInBbox } from "../../views/rows-in-bbox.js";
import { featureCollectionText, featureText } from "../../views/geojson-text.js";
import type { GeoJsonFeature } from "../../views/geojson-text.js";
import { loadScheme } from "../../store/backends.js";
import { localPathOf, schemeOf } from "../../store/schemes.js";
import { validatePrefix } from "../../store/keys.js";
import type { Table } from "apache-arrow";
import type { Dataset, DatasetView, Selection, ViewPartition, Which } from "../../views/reader.js";
import { CONFIG_DEFAULT, CONFIG_HELP, openReading, unknownDataset, UsageError } from "../context.js";
import { bytesSince } from "../../manifest/bytes-since.js";
import { refusalOf, refusalsOf, stillRefused } from "../../manifest/refusal.js";
import type { Manifest } from "../../manifest/types.js";
import { manifestPrefix, NAME, nameShown } from "../../manifest/layout.js";
import type { CommonOptions } from "../context.js";
import { EXIT } from "../exit-codes.js";
import { err, out, printJson } from "../output.js";

type Opts = Omit<CommonOptions, "config"> & {
  /** Optional here: --store alone reads without a config file. */
  config?: string;
  region?: string;
  date?: string;
  /** --latest-date; --latest is its deprecated spelling. */
  latestDate?: boolean;
  latest?: boolean;
  history?: boolean;
  format?: string;
  out?: string;
  snapshot?: string;
  asOf?: string;
  bbox?: string;
  from?: string;
  to?: string;
};

/** The view a command reads: the current manifests, a snapshot, or the manifests as of a time. */
function viewOf(ds: Dataset, opts: Opts): Promise<DatasetView> {
  if (opts.snapshot && opts.asOf) throw new UsageError("give --snapshot or --as-of, not both");
  if (opts.snapshot) return ds.snapshot(opts.snapshot);
  if (opts.asOf) {
    const at = parseInstant(opts.asOf);
    if (!at)
      throw new UsageError(
        `--as-of ${JSON.stringify(opts.asOf)}: give an ISO 8601 instant with its offset, e.g. 2026-11-24T18:00:00Z or 2026-11-24T19:00:00+01:00 (a real calendar day and time)`,
      );
    return ds.asOf(at);
  }
  return ds.current();
}

function selectionOf(opts: Opts): Selection | undefined {
  if (!opts.bbox && !opts.from && !opts.to) return undefined;
  const sel: Selection = {};
  if (opts.bbox) {
    const bbox = parseBbox(opts.bbox);
    if (typeof bbox === "string") throw new UsageError(`--${bbox}`);
    sel.bbox = bbox;
  }
  for (const [flag, value] of [
    ["from", opts.from],
    ["to", opts.to],
  ] as const) {
    if (value === undefined) continue;
    if (!/^\d{4}-\d{2}-\d{2}$/.test(value)) throw new UsageError(`--${flag} ${value}: give a logical date YYYY-MM-DD`);
    sel[flag] = value;
  }
  return sel;
}

const viewOptions = (cmd: Command) =>
  cmd
    .option("--snapshot <id>", "read a committed dataset snapshot: its id, or latest")
    .option(
      "--as-of <time>",
      "read what the manifests pointed at at this instant, ISO 8601 with its offset (2026-11-24T18:00:00Z), from manifest history",
    );

const selectionOptions = (cmd: Command) =>
  cmd
    .option(
      "--bbox <minx,miny,maxx,maxy>",
      "only partitions whose artifact's bbox touches this lon/lat box (WGS84); read: only the rows whose geometry's box touches it",
    )
    .option("--from <date>", "only logical dates on or after this one")
    .option("--to <date>", "only logical dates on or before this one");

/**
 * `--latest-date`: each region's latest logical date, in whatever view is read. Not `--snapshot latest`, the
 * latest committed snapshot (every date of it). `--latest`, its old spelling, still works and says so on stderr.
 */
const latestDate = (cmd: Command, help: string) =>
  cmd
    .option("--latest-date", `${help} (not --snapshot latest, which is the latest committed snapshot, every date)`)
    .addOption(new Option("--latest").hideHelp());

function which(opts: Opts): Which {
  if (opts.date && opts.latest) throw new UsageError("give --date or --latest-date, not both");
  if (!opts.date && !opts.latest) throw new UsageError("give --date YYYY-MM-DD or --latest-date");
  return opts.date ? { date: opts.date } : { latest: true };
}

export async function withDataset(
  name: string,
  opts: Opts,
  body: (ds: ReturnType<typeof openDataset>) => Promise<number | void>,
): Promise<number> {
  if (opts.latest) err("georefresh: --latest is deprecated: use --latest-date (each region's latest logical date)\n");
  opts.latest = Boolean(opts.latest || opts.latestDate);
  const { store, config } = await openReading(opts);
  await loadScheme(store);
  const ds = openDataset(store, name);
  try {
    // One answer everywhere for a name that is nowhere: exit 2, naming it and the known ones. A dataset the
    // config does not name may still be read when the store holds it (an analyst's own config, or none).
    const stored = NAME.test(name) && (await hasManifests(ds));
    if (config && Object.hasOwn(config.broken, name) && !stored) throw config.broken[name] as Error;
    // A region that cannot name a key says so first (the more precise mistake).
    if (opts.region !== undefined) validatePrefix(manifestPrefix(name, opts.region as string));
    if (config && !Object.hasOwn(config.datasets, name) && !stored) throw unknownDataset(config, name);
    // A store directory that is not there is a mistyped --store (or no backfill yet), never an empty answer.
    const local = schemeOf(store) === undefined || schemeOf(store) === "file";
    if (!stored && local && !existsSync(localPathOf(store)))
      throw new UsageError(
        `the store ${localPathOf(store)} does not exist: check --store${config ? ` (or the config's "store")` : ""}, or run georefresh backfill --dataset ${name} into it first`,
      );
    if (!config && !stored)
      throw new UsageError(
        `${ds.store.locate(manifestPrefix(name).slice(0, -1))} holds no partitions of ${nameShown(name)}; check the dataset's name and --store`,
      );
    if (!stored)
      err(
        `georefresh: ${ds.store.locate(manifestPrefix(name).slice(0, -1))} holds no partitions of ${name} yet: run georefresh backfill --dataset ${name} first (or check --store)\n`,
      );
    return (await body(ds)) ?? EXIT.ok;
  } finally {
    await ds.store.close();
  }
}

async function hasManifests(ds: Dataset): Promise<boolean> {
  for await (const entry of ds.store.list(manifestPrefix(ds.name))) return entry !== undefined;
  return false;
}

/** Manifests that could not be read are named on stderr after the rest of the answer; the command then exits 1. */
function reportProblems(problems: readonly { key: string; message: string }[]): number {
  for (const p of problems) err(`georefresh: skipped ${p.key}: ${p.message}\n`);
  return problems.length ? EXIT.failed : EXIT.ok;
}

export const common = (cmd: Command) =>
  cmd
    .option("--config <path>", `${CONFIG_HELP} (default: ${CONFIG_DEFAULT}; not needed with --store)`)
    .option("--store <url>", "the store to read (a directory or URL); overrides the config's")
    .option("--json", "machine-readable output");

export function registerAnalyst(program: Command): void {
  common(program.command("ls").description(DESCRIPTIONS.ls).argument("<dataset>")).action(
    action((name: string, opts: Opts) =>
      withDataset(name, opts, async (ds) => {
        const scanned = await ds.scan();
        const parts = scanned.partitions.sort((a, b) =>
          a.region === b.region ? (a.date < b.date ? -1 : 1) : a.region < b.region ? -1 : 1,
        );
        // The last refused run of a partition, while its manifest still holds what it held then (issue 27 item 5).
        const refusals = await refusalsOf(ds.store, ds.name);
        const refusedOf = (region: string, date: string, m: Manifest | undefined) => {
          const r = refusals.get(`${region}/${date}`);
          refusals.delete(`${region}/${date}`);
          return r && stillRefused(r, m) ? { at: r.at, key: r.key, run_id: r.run_id, message: r.message } : null;
        };
        const rows = parts.map((p) => {
          const since = bytesSince(p.manifest);
          return {
            region: p.region,
            date: p.date,
            // rekeyed: current, with the same bytes as the version before it under a new key (no row changed).
            status: p.manifest.retired ? "retired" : since ? (since.rekeyed ? "rekeyed" : "current") : "empty",
            rows: p.manifest.current?.rows ?? 0,
            key: p.manifest.current?.key ?? null,
            promoted_at: p.manifest.current?.promoted_at ?? null,
            changed_at: since?.changedAt ?? null,
            changes: p.manifest.current?.changes?.counts ?? null,
            refused: refusedOf(p.region, p.date, p.manifest),
          };
        });
        // Partitions refused before any version was promoted have no manifest: listed from their refusal alone.
        for (const r of refusals.values())
          rows.push({
            region: r.region,
            date: r.logical_date,
            status: "empty",
            rows: 0,
            key: null,
            promoted_at: null,
            changed_at: null,
            changes: null,
            refused: refusedOf(r.region, r.logical_date, undefined),
          });
        rows.sort((a, b) => (a.region === b.region ? (a.date < b.date ? -1 : 1) : a.region < b.region ? -1 : 1));
        if (opts.json) printJson(rows);
        else {
          // A header, so that 29 reads as rows (issue 27 item 8); --json is the form for scripts. changed_at is
          // when the bytes last changed: a rekey moves promoted_at, not the data.
          if (rows.length) out("region\tdate\tstatus\trows\tkey\tchanged_at\n");
          for (const r of rows)
            out(
              `${r.region}\t${r.date}\t${r.status}${r.refused ? ", refused" : ""}\t${r.rows}\t${r.key ?? "-"}\t${r.changed_at ?? "-"}\n`,
            );
          for (const r of rows.filter((x) => x.refused))
            err(
              `georefresh: ${r.region} ${r.date}: the last run (${r.refused?.at}) was refused, so ${r.key ? "the version above is still current" : "nothing is published"}: ${r.refused?.message}\n`,
            );
        }
        return reportProblems(scanned.problems);
      }),
    ),
  );

  viewOptions(
    latestDate(
      common(
        program
          .command("show")
          .description(DESCRIPTIONS.show)
          .argument("<dataset>")
          .requiredOption("--region <region>", "the region")
          .option("--date <date>", "logical date"),
      ),
      "the region's latest logical date",
    ).option("--history", "include earlier versions (the current manifest only)"),
  ).action(
    action((name: string, opts: Opts) =>
      withDataset(name, opts, async (ds) => {
        if (opts.snapshot || opts.asOf) {
          const view = await viewOf(ds, opts);
          const p = view.find(opts.region as string, which(opts));
          printJson({ dataset: name, view: view.source, region: p.region, logical_date: p.date, entry: p.entry });
          return;
        }
        const m = await ds.manifest(opts.region as string, which(opts));
        const history = opts.history ? m.history : `${m.history.length} earlier versions (--history to show)`;
        const r = await refusalOf(ds.store, {
          dataset: name,
          region: m.partition.region,
          date: m.partition.logical_date,
        });
        const refused =
          r && stillRefused(r, m) ? { at: r.at, key: r.key, run_id: r.run_id, message: r.message } : undefined;
        printJson({ ...m, history, ...(refused ? { last_refusal: refused } : {}) });
        if (refused)
          err(
            `georefresh: the last run (${refused.at}) was refused, so the version above is still current: ${refused.message}\n`,
          );
      }),
    ),
  );

  selectionOptions(
    viewOptions(
      latestDate(
        common(program.command("urls").description(DESCRIPTIONS.urls).argument("<dataset>")),
        "only the latest logical date of each region",
      ),
    ),
  ).action(
    action((name: string, opts: Opts) =>
      withDataset(name, opts, async (ds) => {
        const sel = { ...selectionOf(opts), latest: Boolean(opts.latest) };
        const view = await viewOf(ds, opts);
        const urls = view.urls(sel);
        if (opts.json) printJson(urls);
        else out(urls.map((u) => `${u}\n`).join(""));
        // An empty answer is said, not left for the reader to wonder about (issue 27 item 7).
        if (!urls.length && (opts.bbox || opts.from || opts.to || opts.asOf))
          err(`georefresh: no partition of ${name} matches ${selectionShown(opts)}\n`);
        return reportProblems(view.problems);
      }),
    ),
  );

  selectionOptions(
    viewOptions(
      latestDate(
        common(
          program
            .command("read")
            .description(DESCRIPTIONS.read)
            .argument("<dataset>")
            .option("--region <region>")
            .option("--date <date>", "logical date")
            .option(
              "--format <format>",
              "geojson | ndjson (lon/lat, OGC:CRS84, as RFC 7946 says) | parquet (the artifact as stored)",
              "geojson",
            )
            .option("--out <file>", "write to a file instead of stdout"),
        ),
        "the latest logical date (of each region, with a selection)",
      ),
    ),
  ).action(
    action((name: string, opts: Opts) =>
      withDataset(name, opts, async (ds) => {
        const format = opts.format ?? "geojson";
        if (!["geojson", "ndjson", "parquet"].includes(format))
          throw new UsageError(`--format ${format}: use geojson, ndjson or parquet`);
        if (format === "parquet" && !opts.out && process.stdout.isTTY)
          throw new UsageError("refusing to write Parquet to a terminal: give --out FILE");
        const sel = selectionOf(opts);
        const many = sel !== undefined && !opts.date;
        if (!many && !opts.region)
          throw new UsageError("give --region with --date or --latest-date, or select with --bbox/--from/--to");
        if (sel?.bbox && format === "parquet")
          throw new UsageError(
            "--bbox picks rows; --format parquet writes a partition's file as it is: drop --bbox, or read --format geojson/ndjson (or give `urls` the selection and read with DuckDB)",
          );
        if (many && format === "parquet")
          throw new UsageError(
            "--format parquet reads one partition: for many, give `urls` the same selection and read them with DuckDB",
          );
        let payload: Uint8Array | string = "";
        const tables: { table: Table; crs: string; from?: { region: string; date: string } }[] = [];
        if (!many && !opts.snapshot && !opts.asOf) {
          // One partition of the current view: straight through its manifest, whose own errors then speak.
          const { entry, bytes } = await ds.bytes(opts.region as string, which(opts));
          if (format === "parquet") payload = bytes;
          else
            tables.push({
              table: (
                await (await import("../../geoparquet/read.js")).readGeoParquet(bytes, ds.store.locate(entry.artifact))
              ).table,
              crs: entry.crs,
            });
        } else {
          const view = await viewOf(ds, opts);
          const parts = many
            ? view.select({ ...sel, region: opts.region, latest: Boolean(opts.latest) })
            : [view.find(opts.region as string, which(opts))];
          if (format === "parquet") payload = await view.bytes(parts[0] as ViewPartition);
          // Rows of many partitions say which partition they came from.
          else
            for (const p of parts)
              tables.push({ table: await view.read(p), crs: p.entry.crs, ...(many ? { from: p } : {}) });
          if (many && !parts.length) err(`georefresh: no partition of ${name} matches ${selectionShown(opts)}\n`);
        }
        if (format !== "parquet") {
          // GeoJSON is lon/lat (RFC 7946): a dataset stored in a projected CRS is reprojected on the way out.
          // --bbox picks the rows that meet the box, not just the partitions (GeoPandas' read_parquet(bbox=)).
          const features = tables.flatMap(({ table, crs, from }) =>
            featuresOf(
              table,
              from && { region: from.region, date: from.date },
              crsFromCode(crs),
              sel?.bbox ? rowsInBbox(table, crs, sel.bbox) : undefined,
            ),
          );
          payload =
            format === "ndjson"
              ? features.map(featureText).join("\n") + (features.length ? "\n" : "")
              : `${featureCollectionText(features)}\n`;
        }
        // The data as it is (never redacted: it is the user's data, not a message).
        if (opts.out) await writeFile(opts.out, payload);
        else process.stdout.write(payload);
      }),
    ),
  );
}

/**
 * A table's rows as GeoJSON features; with `partition`, each also says its region and logical date (`region`,
 * `date`), unless the rows carry columns of those names, whose values then stay.
 */
export function featuresOf(
  table: Table,
  partition?: { region: string; date: string },
  crs: Crs = CRS84_CRS,
  keep: (row: number) => boolean = () => true,
): GeoJsonFeature[] {
  const props = table.schema.fields.map((f) => f.name).filter((n) => n !== "geometry" && n !== "bbox");
  const rows = Array.from({ length: table.numRows }, (_, i) => i).filter(keep);
  return rows.map((i) => ({
    type: "Feature" as const,
    properties: {
      ...(partition ?? {}),
      ...Object.fromEntries(props.map((p) => [p, jsonValue(table.getChild(p)?.get(i))])),
    },
    geometry: reproject(decodeWkb(table.getChild("geometry")?.get(i) as Uint8Array, i), crs, CRS84_CRS),
  }));
}

/** A value as GeoJSON holds it: a 64-bit integer a double holds exactly as a number, else kept whole (a bigint). */
function jsonValue(v: unknown): unknown {
  return typeof v === "bigint" && v <= BigInt(Number.MAX_SAFE_INTEGER) && v >= -BigInt(Number.MAX_SAFE_INTEGER)
    ? Number(v)
    : v;
}

/** The selection flags as given, for a message. */
function selectionShown(opts: Opts): string {
  const given = [
    opts.bbox ? `--bbox ${opts.bbox}` : "",
    opts.from ? `--from ${opts.from}` : "",
    opts.to ? `--to ${opts.to}` : "",
    opts.asOf ? `--as-of ${opts.asOf}` : "",
    opts.snapshot ? `--snapshot ${opts.snapshot}` : "",
    opts.region ? `--region ${opts.region}` : "",
  ].filter(Boolean);
  return given.join(" ");
}
