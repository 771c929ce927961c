import type { Command } from "commander";
import { encodeChangelog } from "../../changes/changelog.js";
import { decodeWkb } from "../../geo/wkb.js";
import { CRS84_CRS, crsFromCode, reproject } from "../../geo/crs/crs.js";
import { rfc7946Winding } from "../../geo/winding.js";
import { changeJson } from "../../views/changes-view.js";
import type { ChangeRange, ChangeSet } from "../../views/changes-view.js";
import { action } from "../action.js";
import { DESCRIPTIONS } from "../descriptions.js";
import { UsageError } from "../context.js";
import type { CommonOptions } from "../context.js";
import { out } from "../output.js";
import { writeOutputFile } from "../output-file.js";
import { common, withDataset } from "../reading.js";
import { dateFlag, dateRange } from "../window.js";

type Opts = CommonOptions & {
  region?: string;
  date?: string;
  from?: string;
  to?: string;
  format?: string;
  out?: string;
};

const FORMATS = ["text", "json", "parquet", "geojson", "ndjson"];

function rangeOf(opts: Opts): ChangeRange {
  if (opts.date !== undefined) dateFlag("date", opts.date);
  dateRange(opts.from, opts.to);
  if (opts.date && (opts.from || opts.to)) throw new UsageError("give --date, or --from and --to, not both");
  if (opts.date) return { date: opts.date };
  if (opts.from && opts.to) return { from: opts.from, to: opts.to };
  throw new UsageError(
    "give --from D1 --to D2 (the change between two dates), or --date D (what D's promotion changed)",
  );
}

export function registerChanges(program: Command): void {
  common(
    program
      .command("changes")
      .description(DESCRIPTIONS.changes)
      .argument("<dataset>")
      .requiredOption("--region <region>", "the region whose partitions to compare")
      .option("--from <date>", "the earlier logical date")
      .option("--to <date>", "the later logical date")
      .option("--date <date>", "what this date's promotion changed (against the version it was computed against)")
      .option("--format <format>", "text | parquet | geojson | ndjson (for JSON, --json: counts and changes)", "text")
      .option("--out <file>", "write to a file instead of stdout")
      .addHelpText(
        "after",
        `
Each changed key is one row per kind: added, removed, geometry_changed, attributes_changed (a key whose geometry
and attributes both changed has one of each); unchanged keys are counted. GeoJSON carries the after geometry, or
the before one for removals. docs/changes.md has the details.

  georefresh changes parcels --region weld --from 2026-03-01 --to 2026-03-02 --json`,
      ),
  ).action(
    action((name: string, opts: Opts) => {
      // --json is the one way to ask for JSON, as on every command; --format json, its old spelling, still works.
      if (opts.json && opts.format !== undefined && !["text", "json"].includes(opts.format))
        throw new UsageError(`give --json or --format ${opts.format}, not both`);
      return withDataset(name, opts, async (ds) => {
        const format = opts.json ? "json" : (opts.format ?? "text");
        if (!FORMATS.includes(format)) throw new UsageError(`--format ${format}: use ${FORMATS.join(", ")}`);
        if (format === "parquet" && !opts.out && process.stdout.isTTY)
          throw new UsageError("refusing to write Parquet to a terminal: give --out FILE");
        const range = rangeOf(opts);
        const set = await ds.changes(opts.region as string, range, {
          geometry: format === "geojson" || format === "ndjson",
        });
        const payload = await render(set, format);
        if (opts.out) await writeOutputFile("--out", opts.out, payload);
        else if (typeof payload === "string") out(payload);
        else process.stdout.write(payload);
      });
    }),
  );
}

/** The CRS a change row's geometry is in: the earlier version's for a removal, else the later one's. */
function crsOf(set: ChangeSet, r: ChangeSet["changes"][number]): string {
  return r.change === "removed" && set.from ? set.from.crs : set.to.crs;
}

async function render(set: ChangeSet, format: string): Promise<string | Uint8Array> {
  const c = set.counts;
  if (format === "json")
    return `${JSON.stringify(
      {
        dataset: set.dataset,
        region: set.region,
        key: set.key,
        from: set.from,
        to: set.to,
        counts: c,
        changes: set.changes.map((r) => changeJson(set.key, r)),
      },
      null,
      2,
    )}\n`;
  if (format === "parquet")
    return encodeChangelog({ key: set.key, keyTypes: set.keyTypes, counts: c, rows: set.changes });
  if (format === "geojson" || format === "ndjson") {
    const features = set.changes.map((r, i) => {
      const { id, change, columns } = changeJson(set.key, r);
      return {
        type: "Feature",
        id: typeof id === "object" ? JSON.stringify(id) : id,
        properties: { ...(typeof id === "object" ? (id as object) : { [set.key[0] as string]: id }), change, columns },
        // GeoJSON is lon/lat (RFC 7946): the after geometry from the new version's CRS, a removal's from the old one's
        geometry: r.geometry
          ? rfc7946Winding(reproject(decodeWkb(r.geometry, i), crsFromCode(crsOf(set, r)), CRS84_CRS))
          : null,
      };
    });
    return format === "ndjson"
      ? features.map((f) => `${JSON.stringify(f)}\n`).join("")
      : `${JSON.stringify({ type: "FeatureCollection", features })}\n`;
  }
  const head = `${set.dataset} ${set.region} ${set.from?.logical_date ?? "(nothing)"} → ${set.to.logical_date}: ${c.added} added, ${c.removed} removed, ${c.geometry_changed} geometry changed, ${c.attributes_changed} attributes changed, ${c.unchanged} unchanged\n`;
  return (
    head +
    set.changes
      .map((r) => {
        const { id, change, columns } = changeJson(set.key, r);
        return `${typeof id === "object" ? JSON.stringify(id) : String(id)}\t${change}${columns.length && change === "attributes_changed" ? `\t${columns.join(",")}` : ""}\n`;
      })
      .join("")
  );
}
