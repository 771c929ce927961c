import type { Command } from "commander";
import { DESCRIPTIONS } from "./descriptions.js";

/**
 * Every command: its one-line description (the command's module registers it with this text) and how to load
 * the module that registers it. main.ts loads only the module of the command being run, so `--help` and a
 * quick `ls` never load the store SDKs, Arrow or the GeoParquet writer. A new command is its module plus one
 * entry here.
 */
export const COMMANDS = {
  doctor: {
    description: DESCRIPTIONS.doctor,
    register: () => import("./commands/doctor.js").then((m) => m.registerDoctor),
  },
  backfill: {
    description: DESCRIPTIONS.backfill,
    register: () => import("./commands/backfill.js").then((m) => m.registerBackfill),
  },
  run: {
    description: DESCRIPTIONS.run,
    register: () => import("./commands/run.js").then((m) => m.registerRun),
  },
  finalize: {
    description: DESCRIPTIONS.finalize,
    register: () => import("./commands/finalize.js").then((m) => m.registerFinalize),
  },
  ls: {
    description: DESCRIPTIONS.ls,
    register: () => import("./commands/ls.js").then((m) => m.registerLs),
  },
  show: {
    description: DESCRIPTIONS.show,
    register: () => import("./commands/show.js").then((m) => m.registerShow),
  },
  urls: {
    description: DESCRIPTIONS.urls,
    register: () => import("./commands/urls.js").then((m) => m.registerUrls),
  },
  read: {
    description: DESCRIPTIONS.read,
    register: () => import("./commands/read.js").then((m) => m.registerRead),
  },
  changes: {
    description: DESCRIPTIONS.changes,
    register: () => import("./commands/changes.js").then((m) => m.registerChanges),
  },
  sink: {
    description: DESCRIPTIONS.sink,
    register: () => import("./commands/sink.js").then((m) => m.registerSink),
  },
  serve: {
    description: DESCRIPTIONS.serve,
    register: () => import("./commands/serve.js").then((m) => m.registerServe),
  },
  stac: {
    description: DESCRIPTIONS.stac,
    register: () => import("./commands/stac.js").then((m) => m.registerStac),
  },
  report: {
    description: DESCRIPTIONS.report,
    register: () => import("./commands/report.js").then((m) => m.registerReport),
  },
  deliver: {
    description: DESCRIPTIONS.deliver,
    register: () => import("./commands/deliver.js").then((m) => m.registerDeliver),
  },
  gc: {
    description: DESCRIPTIONS.gc,
    register: () => import("./commands/gc.js").then((m) => m.registerGc),
  },
  validate: {
    description: DESCRIPTIONS.validate,
    register: () => import("./commands/validate.js").then((m) => m.registerValidate),
  },
  verify: {
    description: DESCRIPTIONS.verify,
    register: () => import("./commands/verify.js").then((m) => m.registerVerify),
  },
} satisfies Record<string, { description: string; register: () => Promise<(program: Command) => void> }>;

export type CommandName = keyof typeof COMMANDS;
