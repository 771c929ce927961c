import { linearizedOf, setLinearized } from "../task/linearized.js";
import { rowOrigins, setRowOrigins } from "../task/row-origins.js";
import { createHash } from "node:crypto";
import { stat } from "node:fs/promises";
import type { RecordBatch } from "apache-arrow";
import { stageDetail } from "../stage-times.js";
import { redact } from "../store/secrets.js";
import { defineTask } from "../task/task.js";
import type { TaskContext, TaskDefinition } from "../task/task.js";
import { SourceError } from "./errors.js";
import { formatDeclaration, loadFormat, optionsOf } from "./formats.js";
import { sourceCrs } from "./source-crs.js";
import type { ReadOptions, SourceFile } from "./source-format.js";
import { SOURCE_OPTIONS } from "./source-options.js";
import { sourceUrl } from "./source-spec.js";
import type { SourceSpec } from "./source-spec.js";
import { unifyBatches } from "./unify.js";

/**
 * Bumped whenever a reader's rows for the same file could change: part of every source dataset's keys. 3: CRSs read
 * as PROJ reads them (NAD27, 7-parameter shifts, custom WKT), so artifacts read the old way are not kept as current.
 * 4: files from the wild read as OGR reads them (a GeoJSON feature's id, z filled where a geometry mixes 2D and 3D).
 */
export const READERS_VERSION = "4";

/** Where this factory lives, so a worker thread or process builds the same task from the same spec. */
export const SOURCE_TASK_MODULE = import.meta.url;

/**
 * The task a `source` config entry stands for (docs/sources.md): its one input is the file the url names for the
 * partition; compute reads it with the format's reader, in batches, and hands the rows on in the file's CRS,
 * which the protocol reprojects to the storage CRS before any check.
 */
export function sourceTask(spec: SourceSpec): TaskDefinition {
  const storageCrs = spec.storageCrs ?? "OGC:CRS84";
  const path = spec.url.split(/[?#]/)[0] ?? "";
  // The files its format reads beside the url's own (a bare Shapefile's .dbf): each an input, identified with it.
  const companions = formatDeclaration(spec.format).companions?.(path) ?? [];
  const sidecars = companions.map((c) => c.extension);
  const optional = companions.filter((c) => c.optional).map((c) => c.extension);
  return defineTask({
    name: spec.dataset,
    version: `source-${READERS_VERSION}-${readingDigest(spec)}`,
    cadence: spec.cadence,
    regions: spec.regions,
    regionsComplete: spec.regionsComplete,
    pins: spec.pins,
    crs: storageCrs,
    storageCrs,
    ...(spec.key ? { key: spec.key } : {}),
    ...(spec.complete ? {} : { payload: "partial" as const }),
    ...(spec.plausibility ? { plausibility: spec.plausibility } : {}),
    optionalInputs: optional,
    ...(spec.latestOnly ? { latestOnly: true } : {}),
    ...(spec.datumShift ? { datumShift: spec.datumShift } : {}),
    inputs(partition) {
      const url = sourceUrl(spec, partition);
      const inputs: Record<string, string> = { source: url };
      for (const ext of sidecars) inputs[ext] = url.replace(/\.[^./?#]+(?=$|[?#])/, ext);
      return inputs;
    },
    async compute(ctx: TaskContext) {
      const name = redact(sourceUrl(spec, ctx.partition));
      // Each path was checked against its identity when handed over; one that changes while it is read would give
      // rows that match neither, so the reading is checked to have seen one unchanged file (stat before and after).
      const seen = new Map<string, string>();
      const watched = async (path: string) => {
        seen.set(path, await statOf(path));
        return path;
      };
      const file: SourceFile = {
        path: await watched(await ctx.inputPath("source")),
        name,
        sidecar: async (ext) =>
          sidecars.includes(ext)
            ? ctx.inputPath(ext).then(watched, (error: unknown) => {
                if ((error as { code?: unknown }).code === "InputMissing" && optional.includes(ext)) return undefined;
                throw error;
              })
            : undefined,
      };
      const shortName = name.split(/[?#]/)[0]?.split("/").pop() ?? name;
      const format = await loadFormat(spec.format);
      const opened = await format.open(file, readOptions(spec));
      try {
        // A file silent about its CRS fails before its rows are read, unless reading is what finds the CRS.
        if (opened.crs === undefined && opened.impliedCrs === undefined) sourceCrs(opened, spec.crs, name);
        const batches: RecordBatch[] = [];
        let rows = 0;
        for await (const batch of opened.batches()) {
          batches.push(batch);
          rows += batch.numRows;
          stageDetail(ctx.partition, `${rows.toLocaleString("en")} rows read from ${shortName}`);
        }
        for (const [path, before] of seen)
          if ((await statOf(path)) !== before)
            throw new SourceError(
              `${name}${path === file.path ? "" : ` (${path.split("/").pop() ?? path})`} changed while it was read (its size or modification time moved); nothing was kept from it; run again once the file is complete`,
            );
        const { definition } = sourceCrs(opened, spec.crs, name);
        const table = unifyBatches(batches, definition, name);
        setLinearized(
          table,
          batches.reduce((n, b) => n + linearizedOf(b), 0),
        );
        // Each row's feature number in the file, when the reader said it for every row (row-origins.ts).
        const fids = batches.map((b) => rowOrigins(b));
        if (fids.every((f) => f !== undefined)) {
          const all = new Float64Array(rows);
          let at = 0;
          for (const f of fids as Float64Array[]) {
            all.set(f, at);
            at += f.length;
          }
          setRowOrigins(table, all);
        }
        const names = table.schema.fields.map((f) => f.name).filter((n) => n !== "geometry");
        const missing = (spec.key ?? []).filter((k) => !names.includes(k));
        if (missing.length)
          throw new SourceError(
            `${name} has no column ${missing.map((k) => JSON.stringify(k)).join(", ")} for the source's "key" (its columns: ${names.join(", ")}); "key" names the dataset's columns, after "columns" renames them`,
          );
        return table;
      } finally {
        await opened.close();
      }
    },
  });
}

/** What a change to a file moves: its size, inode and modification and change times (to the nanosecond). */
async function statOf(path: string): Promise<string> {
  const s = await stat(path, { bigint: true });
  return `${s.size}:${s.ino}:${s.mtimeNs}:${s.ctimeNs}`;
}

/** The options the source set, of those its format takes (formats.ts). */
function readOptions(spec: SourceSpec): ReadOptions {
  const options: Record<string, unknown> = {};
  for (const { key } of optionsOf(spec.format)) if (spec[key] !== undefined) options[key] = spec[key];
  return options as ReadOptions;
}

/**
 * What decides a file's rows besides its bytes: its format and every option that changes a reading, in the order
 * SOURCE_OPTIONS gives (null where absent), so two readings of one file never share a fingerprint.
 */
export function readingDigest(spec: SourceSpec): string {
  const taken = readOptions(spec);
  const reading: Record<string, unknown> = { format: spec.format };
  for (const option of SOURCE_OPTIONS) if (option.changesReading) reading[option.key] = taken[option.key] ?? null;
  return createHash("sha256").update(JSON.stringify(reading)).digest("hex").slice(0, 16);
}
