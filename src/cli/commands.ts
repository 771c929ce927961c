import type { Command } from "commander";

/**
 * Every command: its one-line description (the command's module registers it with this text) and how to load
 * the module that registers it. main.ts loads only the module of the command being run, so `--help` and a
 * quick `ls` never load the store SDKs, Arrow or the GeoParquet writer. A new command is its module plus one
 * entry here.
 */
export const COMMANDS = {
  doctor: {
    description:
      "prove that a store honours conditional writes (create-if-absent and compare-and-swap) on a scratch key",
    register: () => import("./commands/doctor.js").then((m) => m.registerDoctor),
  },
  backfill: {
    description: "refresh every region × logical date of a dataset between two dates, safely re-runnable",
    register: () => import("./commands/run.js").then((m) => m.registerRun),
  },
  run: {
    description: "refresh one partition (dataset, region, logical date)",
    register: () => import("./commands/run.js").then((m) => m.registerRun),
  },
  finalize: {
    description: "after all shards of a backfill: check that every planned partition is current, then retire regions",
    register: () => import("./commands/finalize.js").then((m) => m.registerFinalize),
  },
  ls: {
    description: "list a dataset's partitions: status, rows, when last promoted",
    register: () => import("./commands/analyst.js").then((m) => m.registerAnalyst),
  },
  show: {
    description: "show the manifest entry a partition's readers follow",
    register: () => import("./commands/analyst.js").then((m) => m.registerAnalyst),
  },
  urls: {
    description: "artifact locations of current partitions, ready for DuckDB's read_parquet([...])",
    register: () => import("./commands/analyst.js").then((m) => m.registerAnalyst),
  },
  read: {
    description:
      "read a partition's artifact (sha256-verified) as GeoJSON, NDJSON or Parquet; or, with --bbox/--from/--to, every selected partition's rows",
    register: () => import("./commands/analyst.js").then((m) => m.registerAnalyst),
  },
  stac: {
    description: "write the dataset's static STAC catalog (Collection, Items, stac-geoparquet) into the store",
    register: () => import("./commands/stac.js").then((m) => m.registerStac),
  },
  report: {
    description: "write a self-contained HTML report of a dataset: status grid, trends, map",
    register: () => import("./commands/report.js").then((m) => m.registerReport),
  },
  deliver: {
    description:
      "send pending outbox events (one per promoted change) to a webhook, with Idempotency-Key and HMAC signature",
    register: () => import("./commands/deliver.js").then((m) => m.registerDeliver),
  },
  gc: {
    description:
      "remove leftovers readers never see: temp objects, stale outbox events, stale multipart uploads, and this machine's TMPDIR files of killed runs (dry run unless --apply)",
    register: () => import("./commands/gc.js").then((m) => m.registerGc),
  },
  validate: {
    description:
      "check GeoParquet 1.0, 1.1 and 2.0 files on every row: metadata rules, WKB or GeoArrow, OGC validity (GEOS), finite coordinates, CRS domain, native statistics, best practice",
    register: () => import("./commands/validate.js").then((m) => m.registerValidate),
  },
  verify: {
    description:
      "run a partition twice into scratch stores and prove byte-identical artifacts and an unchanged manifest",
    register: () => import("./commands/verify.js").then((m) => m.registerVerify),
  },
} satisfies Record<string, { description: string; register: () => Promise<(program: Command) => void> }>;

export type CommandName = keyof typeof COMMANDS;
