import type { Command } from "commander";
import { action } from "../action.js";
import { DESCRIPTIONS } from "../descriptions.js";
import type { Table } from "apache-arrow";
import { crsFromCode } from "../../geo/crs/crs.js";
import { rowsInBbox } from "../../views/rows-in-bbox.js";
import { featureCollectionText, featureText } from "../../views/geojson-text.js";
import type { Dataset, Selection, ViewPartition } from "../../views/reader.js";
import { UsageError } from "../context.js";
import { featuresOf } from "../../views/features.js";
import { err } from "../output.js";
import { writeOutputFile } from "../output-file.js";
import {
  common,
  latestDate,
  selectionOf,
  selectionOptions,
  selectionShown,
  viewOf,
  viewOptions,
  which,
  withDataset,
} from "../reading.js";
import type { Opts } from "../reading.js";

/** `read`: rows of one partition or a selection as GeoJSON or NDJSON (lon/lat), or a partition's file as stored. */
export function registerRead(program: Command): void {
  selectionOptions(
    viewOptions(
      latestDate(
        common(
          program
            .command("read")
            .description(DESCRIPTIONS.read)
            .argument("<dataset>")
            .option("--region <region>", "the region to read (with --date or --latest-date)")
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
        const request = requestOf(opts);
        const found = await partitionsOf(ds, name, opts, request);
        // The data as it is (never redacted: it is the user's data, not a message).
        const payload = found.bytes ?? featuresText(found.tables, request);
        if (opts.out) await writeOutputFile("--out", opts.out, payload);
        else process.stdout.write(payload);
      }),
    ),
  );
}

/** What `read` was asked for: the format, the selection, and whether it spans many partitions. */
interface ReadRequest {
  format: "geojson" | "ndjson" | "parquet";
  sel: Selection | undefined;
  many: boolean;
}

/** Rows of one partition, in its storage CRS; with a selection, which partition they came from. */
type Rows = { table: Table; crs: string; from?: { region: string; date: string } };

/** The options checked against each other: every combination that cannot be read is a usage error (exit 2). */
function requestOf(opts: Opts): ReadRequest {
  const format = opts.format ?? "geojson";
  if (format !== "geojson" && format !== "ndjson" && format !== "parquet")
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
  return { format, sel, many };
}

/** The partition's file as stored (--format parquet), or the rows of every partition asked for. */
async function partitionsOf(
  ds: Dataset,
  name: string,
  opts: Opts,
  { format, sel, many }: ReadRequest,
): Promise<{ bytes?: Uint8Array; tables: Rows[] }> {
  if (!many && !opts.snapshot && !opts.asOf) {
    // One partition of the current view: straight through its manifest, whose own errors then speak.
    const { entry, bytes } = await ds.bytes(opts.region as string, which(opts));
    if (format === "parquet") return { bytes, tables: [] };
    const { readGeoParquet } = await import("../../geoparquet/read.js");
    return {
      tables: [{ table: (await readGeoParquet(bytes, ds.store.locate(entry.artifact))).table, crs: entry.crs }],
    };
  }
  const view = await viewOf(ds, opts);
  const parts = many
    ? view.select({ ...sel, region: opts.region, latest: Boolean(opts.latest) })
    : [view.find(opts.region as string, which(opts))];
  if (format === "parquet") return { bytes: await view.bytes(parts[0] as ViewPartition), tables: [] };
  if (many && !parts.length) err(`georefresh: no partition of ${name} matches ${selectionShown(opts)}\n`);
  const tables: Rows[] = [];
  // Rows of many partitions say which partition they came from.
  for (const p of parts) tables.push({ table: await view.read(p), crs: p.entry.crs, ...(many ? { from: p } : {}) });
  return { tables };
}

/**
 * GeoJSON or NDJSON, lon/lat (RFC 7946): a dataset stored in a projected CRS is reprojected on the way out.
 * --bbox picks the rows that meet the box, not just the partitions (GeoPandas' read_parquet(bbox=)).
 */
function featuresText(tables: Rows[], { format, sel }: ReadRequest): string {
  const features = tables.flatMap(({ table, crs, from }) =>
    featuresOf(
      table,
      from && { region: from.region, date: from.date },
      crsFromCode(crs),
      sel?.bbox ? rowsInBbox(table, crs, sel.bbox) : undefined,
    ),
  );
  return format === "ndjson"
    ? features.map(featureText).join("\n") + (features.length ? "\n" : "")
    : `${featureCollectionText(features)}\n`;
}
