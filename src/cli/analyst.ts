import { writeFile } from "node:fs/promises";
import type { Command } from "commander";
import { decodeWkb } from "../geo/wkb.js";
import { openDataset } from "../pipeline/reader.js";
import type { Which } from "../pipeline/reader.js";
import { CONFIG_HELP, openConfig, UsageError } from "./context.js";
import type { CommonOptions } from "./context.js";
import { EXIT } from "./exit-codes.js";
import { err, out, printJson, reportError } from "./output.js";

type Opts = CommonOptions & {
  region?: string;
  date?: string;
  latest?: boolean;
  history?: boolean;
  format?: string;
  out?: string;
};

function which(opts: Opts): Which {
  if (opts.date && opts.latest) throw new UsageError("give --date or --latest, not both");
  if (!opts.date && !opts.latest) throw new UsageError("give --date YYYY-MM-DD or --latest");
  return opts.date ? { date: opts.date } : { latest: true };
}

async function withDataset(
  name: string,
  opts: Opts,
  body: (ds: ReturnType<typeof openDataset>) => Promise<void>,
): Promise<void> {
  try {
    const config = await openConfig(opts);
    const ds = openDataset(config.store, name);
    try {
      await body(ds);
    } finally {
      await ds.store.close();
    }
  } catch (error) {
    process.exitCode = reportError(error, Boolean(opts.json));
  }
}

/** Manifests that could not be read are named on stderr after the rest of the answer; the command then exits 1. */
function reportProblems(problems: { key: string; message: string }[]): void {
  for (const p of problems) err(`georefresh: skipped ${p.key}: ${p.message}\n`);
  if (problems.length) process.exitCode = EXIT.failed;
}

const common = (cmd: Command) =>
  cmd
    .option("--config <path>", CONFIG_HELP, "georefresh.config.json")
    .option("--store <url>", "override the config's store")
    .option("--json", "machine-readable output");

export function registerAnalyst(program: Command): void {
  common(
    program
      .command("ls")
      .description("list a dataset's partitions: status, rows, when last promoted")
      .argument("<dataset>"),
  ).action((name: string, opts: Opts) =>
    withDataset(name, opts, async (ds) => {
      const scanned = await ds.scan();
      const parts = scanned.partitions.sort((a, b) =>
        a.region === b.region ? (a.date < b.date ? -1 : 1) : a.region < b.region ? -1 : 1,
      );
      const rows = parts.map((p) => ({
        region: p.region,
        date: p.date,
        status: p.manifest.retired ? "retired" : p.manifest.current ? "current" : "empty",
        rows: p.manifest.current?.rows ?? 0,
        key: p.manifest.current?.key ?? null,
        promoted_at: p.manifest.current?.promoted_at ?? null,
      }));
      if (opts.json) printJson(rows);
      else
        for (const r of rows)
          out(`${r.region}\t${r.date}\t${r.status}\t${r.rows}\t${r.key ?? "-"}\t${r.promoted_at ?? "-"}\n`);
      reportProblems(scanned.problems);
    }),
  );

  common(
    program
      .command("show")
      .description("show the manifest entry a partition's readers follow")
      .argument("<dataset>")
      .requiredOption("--region <region>")
      .option("--date <date>", "logical date")
      .option("--latest", "the latest promoted date")
      .option("--history", "include earlier versions"),
  ).action((name: string, opts: Opts) =>
    withDataset(name, opts, async (ds) => {
      const m = await ds.manifest(opts.region as string, which(opts));
      const view = opts.history ? m : { ...m, history: `${m.history.length} earlier versions (--history to show)` };
      printJson(view);
    }),
  );

  common(
    program
      .command("urls")
      .description("artifact locations of current partitions, ready for DuckDB's read_parquet([...])")
      .argument("<dataset>")
      .option("--latest", "only the latest date of each region"),
  ).action((name: string, opts: Opts) =>
    withDataset(name, opts, async (ds) => {
      const scanned = await ds.scan();
      let parts = scanned.partitions.filter((p) => p.manifest.current && !p.manifest.retired);
      if (opts.latest) {
        const newest = new Map<string, (typeof parts)[number]>();
        for (const p of parts) if ((newest.get(p.region)?.date ?? "") < p.date) newest.set(p.region, p);
        parts = [...newest.values()];
      }
      const urls = parts
        .sort((a, b) => (a.region + a.date < b.region + b.date ? -1 : 1))
        .map((p) => ds.store.locate(p.manifest.current?.artifact as string));
      if (opts.json) printJson(urls);
      else out(urls.map((u) => `${u}\n`).join(""));
      reportProblems(scanned.problems);
    }),
  );

  common(
    program
      .command("read")
      .description("read a partition's current artifact (sha256-verified) as GeoJSON, NDJSON or Parquet")
      .argument("<dataset>")
      .requiredOption("--region <region>")
      .option("--date <date>", "logical date")
      .option("--latest", "the latest promoted date")
      .option("--format <format>", "geojson | ndjson | parquet", "geojson")
      .option("--out <file>", "write to a file instead of stdout"),
  ).action((name: string, opts: Opts) =>
    withDataset(name, opts, async (ds) => {
      const format = opts.format ?? "geojson";
      if (!["geojson", "ndjson", "parquet"].includes(format))
        throw new UsageError(`--format ${format}: use geojson, ndjson or parquet`);
      if (format === "parquet" && !opts.out && process.stdout.isTTY)
        throw new UsageError("refusing to write Parquet to a terminal: give --out FILE");
      const { entry, bytes } = await ds.bytes(opts.region as string, which(opts));
      let payload: Uint8Array | string;
      if (format === "parquet") payload = bytes;
      else {
        const { table } = await ds.read(opts.region as string, which(opts));
        const props = table.schema.fields.map((f) => f.name).filter((n) => n !== "geometry" && n !== "bbox");
        const features = Array.from({ length: table.numRows }, (_, i) => ({
          type: "Feature",
          properties: Object.fromEntries(props.map((p) => [p, jsonValue(table.getChild(p)?.get(i))])),
          geometry: decodeWkb(table.getChild("geometry")?.get(i) as Uint8Array, i),
        }));
        payload =
          format === "ndjson"
            ? features.map((f) => JSON.stringify(f)).join("\n") + (features.length ? "\n" : "")
            : `${JSON.stringify({ type: "FeatureCollection", features })}\n`;
      }
      // The data as it is (never redacted: it is the user's data, not a message).
      if (opts.out) await writeFile(opts.out, payload);
      else process.stdout.write(payload);
      void entry;
    }),
  );
}

function jsonValue(v: unknown): unknown {
  return typeof v === "bigint" ? Number(v) : v;
}
