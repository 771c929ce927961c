import { readFile } from "node:fs/promises";
import { dirname, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { FORMATS } from "../geoparquet/metadata.js";
import type { GeoParquetFormat } from "../geoparquet/metadata.js";
import { checkVersionsFile } from "../calendar/pins.js";
import type { VersionsFile } from "../calendar/pins.js";
import type { TaskDefinition } from "../task/task.js";
import { loadTask } from "../task/task-ref.js";
import type { TaskRef } from "../task/task-ref.js";
import { GeorefreshError } from "../errors.js";
import type { ErrorCode } from "../errors.js";
import parseSpdx from "spdx-expression-parse";
import { NAME, NAME_RULE, nameShown } from "../manifest/layout.js";
import { upstreamsOf } from "../inputs/dataset-input.js";
import { AllowList } from "../inputs/address-policy.js";
import { parseBytes } from "../sizes.js";
import { SOURCE_TASK_MODULE } from "../sources/source-task.js";
import { sourceSpecOf } from "./source-config.js";

/**
 * georefresh.config.json:
 * { "store": "./data", "versions": "./versions.json",
 *   "datasets": { "<name>": { "task": "<built-in task>" } | { "module": "./my-task.js", "export": "default" }, "params": {…},
 *                 | { "source": { "url": "./feeds/{region}.gpkg", … }, "regions": [...] } (docs/sources.md),
 *                 "catalog": { "license": "CC-BY-4.0", "title": "…", "description": "…" },
 *                 "format": "geoparquet-1.1" | "geoparquet-2.0" } },
 *   "inputs": { "allowHosts": ["mirror.internal", "10.0.0.0/8"], "maxBytes": "8GiB" } }
 */
export interface Config {
  path: string;
  store: string;
  versions: VersionsFile;
  datasets: Record<
    string,
    {
      task: TaskDefinition;
      ref: TaskRef;
      params: Record<string, unknown>;
      catalog: CatalogConfig;
      sink: SinkConfig;
    }
  >;
  /**
   * Datasets whose entry is wrong, with the error: each fails alone, when a command names it (or a dataset that
   * reads it), so one bad entry never stops the others.
   */
  broken: Record<string, ConfigError>;
  /** Where HTTP inputs may connect beyond the defaults, and the cap on one input's bytes (docs/inputs.md). */
  inputs: { allowHosts: string[]; maxBytes?: number };
}

/** Where `georefresh sink` applies a dataset (docs/sinks.md): the table's name, when not the dataset's own. */
export interface SinkConfig {
  table?: string;
  /** Keyed datasets in PostGIS: also keep `<table>_history` (docs/sinks.md). */
  history?: boolean;
}

/** What the STAC Collection says of a dataset (docs/stac.md); license defaults to "other". */
export interface CatalogConfig {
  license?: string;
  title?: string;
  description?: string;
}

export class ConfigError extends GeorefreshError {
  override readonly code: ErrorCode = "Config";
}

async function readJson(path: string, what: string): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    throw new ConfigError(
      `${what} ${path} cannot be read (${(error as NodeJS.ErrnoException).code}); pass --config or create it`,
    );
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new ConfigError(`${what} ${path} is not JSON: ${(error as Error).message}`);
  }
}

/** Built-in tasks: the record of tasks, and where that record can be imported from (for worker threads). */
export interface Builtins {
  tasks: Record<string, TaskDefinition>;
  module: string;
  export: string;
}

/** The keys a config file takes at its top ("$schema" for editors that validate JSON). */
const TOP_LEVEL_KEYS = ["store", "versions", "datasets", "inputs", "$schema"];

export async function loadConfig(path: string, builtins: Builtins, storeOverride?: string): Promise<Config> {
  const full = resolve(path);
  const base = dirname(full);
  const doc = (await readJson(full, "config")) as {
    store?: unknown;
    versions?: unknown;
    datasets?: unknown;
    inputs?: unknown;
  };
  if (typeof doc !== "object" || doc === null || Array.isArray(doc))
    throw new ConfigError(`${full}: a config is a JSON object ({ "store": …, "datasets": { … } })`);
  // A misspelt top-level key ("evnets", "inptus") would otherwise be ignored, and what it says never happen.
  for (const key of Object.keys(doc))
    if (!TOP_LEVEL_KEYS.includes(key))
      throw new ConfigError(
        `${full}: unknown top-level key ${JSON.stringify(key)} (a config takes ${TOP_LEVEL_KEYS.join(", ")}; a dataset's own keys go inside "datasets")`,
      );
  if (typeof doc.datasets !== "object" || doc.datasets === null)
    throw new ConfigError(`${full}: "datasets" must be an object of dataset name → { task | module }`);
  const store = storeOverride ?? (typeof doc.store === "string" ? doc.store : undefined);
  if (!store)
    throw new ConfigError(`${full}: "store" is missing (a directory, file://, memory://, s3:// or az:// URL)`);
  const versions =
    doc.versions === undefined
      ? {}
      : checkVersionsFile(await readJson(resolve(base, String(doc.versions)), "versions file"), String(doc.versions));
  // No prototype: a dataset asked for as "constructor" or "toString" is simply not there.
  const datasets: Config["datasets"] = Object.create(null) as Config["datasets"];
  const broken: Config["broken"] = Object.create(null) as Config["broken"];
  for (const name of Object.keys(doc.datasets as object)) {
    if (!NAME.test(name))
      throw new ConfigError(`${full}: dataset name ${nameShown(name)} is not allowed: use ${NAME_RULE}`);
  }
  for (const [name, raw] of Object.entries(
    doc.datasets as Record<
      string,
      {
        task?: string;
        module?: string;
        export?: string;
        params?: Record<string, unknown>;
        catalog?: CatalogConfig;
        format?: unknown;
        events?: unknown;
        initialEvents?: unknown;
        sink?: unknown;
        source?: unknown;
      }
    >,
  )) {
    // One dataset's mistake fails that dataset alone: the others still load and run.
    try {
      let ref: TaskRef;
      if (raw.source !== undefined) {
        if (raw.task !== undefined || raw.module !== undefined)
          throw new ConfigError(
            `${full}: dataset '${name}' has "source" and "${raw.task !== undefined ? "task" : "module"}": a dataset is read from a source by config, or computed by a task; pick one`,
          );
        const spec = sourceSpecOf(name, raw as Record<string, unknown>, base, (message) => {
          throw new ConfigError(`${full}: ${message}`);
        });
        ref = { module: SOURCE_TASK_MODULE, export: "sourceTask", factoryArgument: spec };
      } else if (raw.task) {
        if (typeof raw.task !== "string" || !Object.hasOwn(builtins.tasks, raw.task))
          throw new ConfigError(
            `${full}: dataset '${name}' names task '${raw.task}', which is not built in (${Object.keys(builtins.tasks).join(", ")}); use "module" for your own`,
          );
        ref = { module: builtins.module, export: builtins.export, key: raw.task as string };
      } else if (raw.module) {
        ref = {
          module: pathToFileURL(resolve(base, raw.module)).href,
          export: raw.export ?? "default",
          inputBase: base,
        };
      } else
        throw new ConfigError(
          `${full}: dataset '${name}' needs "source" (a feed read by config: docs/sources.md), "task" (built in) or "module" (your own: docs/tasks.md)`,
        );
      if (raw.format !== undefined) {
        if (!FORMATS.includes(raw.format as GeoParquetFormat))
          throw new ConfigError(
            `${full}: dataset '${name}': "format" must be one of ${FORMATS.map((f) => JSON.stringify(f)).join(", ")} (got ${JSON.stringify(raw.format)})`,
          );
        ref = { ...ref, format: raw.format as GeoParquetFormat };
      }
      if (raw.events !== undefined) {
        if (raw.events !== "partition" && raw.events !== "changes")
          throw new ConfigError(
            `${full}: dataset '${name}': "events" must be "partition" (one event per promoted artifact) or "changes" (one per changed row; the task needs a key) (got ${JSON.stringify(raw.events)})`,
          );
        ref = { ...ref, events: raw.events };
      }
      if (raw.initialEvents !== undefined) {
        if (typeof raw.initialEvents !== "boolean")
          throw new ConfigError(`${full}: dataset '${name}': "initialEvents" must be true or false`);
        ref = { ...ref, initialEvents: raw.initialEvents };
      }
      let task: TaskDefinition;
      try {
        task = await loadTask(ref);
      } catch (error) {
        throw new ConfigError(`${full}: dataset '${name}': ${(error as Error).message}`);
      }
      datasets[name] = {
        task,
        ref,
        params: raw.params ?? {},
        catalog: catalogOf(raw.catalog, `${full}: dataset '${name}'`),
        sink: sinkOf(raw.sink, `${full}: dataset '${name}'`),
      };
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      broken[name] = error;
    }
  }
  checkDatasets(
    datasets,
    broken,
    versions,
    full,
    doc.versions === undefined ? undefined : resolve(base, String(doc.versions)),
  );
  return {
    path: full,
    store: storeUrlOf(store, base),
    versions,
    datasets,
    broken,
    inputs: inputsOf(doc.inputs, full),
  };
}

/** A store as given (a URL, or a directory relative to `base`) as the URL the scheme registry opens. */
export function storeUrlOf(store: string, base: string): string {
  return /^[a-z][a-z0-9+.-]*:\/\//i.test(store) ? store : resolve(base, store);
}

function sinkOf(raw: unknown, where: string): SinkConfig {
  if (raw === undefined) return {};
  if (typeof raw !== "object" || raw === null || Array.isArray(raw))
    throw new ConfigError(`${where}: "sink" must be an object, e.g. { "table": "parcels" }`);
  const out: SinkConfig = {};
  for (const [k, v] of Object.entries(raw)) {
    if (k === "table") {
      if (typeof v !== "string" || !v) throw new ConfigError(`${where}: "sink.table" must be a non-empty string`);
      out.table = v;
    } else if (k === "history") {
      if (typeof v !== "boolean") throw new ConfigError(`${where}: "sink.history" must be true or false`);
      out.history = v;
    } else throw new ConfigError(`${where}: "sink" has an unknown field "${k}" (table, history)`);
  }
  return out;
}

function catalogOf(raw: unknown, where: string): CatalogConfig {
  if (raw === undefined) return {};
  if (typeof raw !== "object" || raw === null) throw new ConfigError(`${where}: "catalog" must be an object`);
  const out: CatalogConfig = {};
  for (const [k, v] of Object.entries(raw)) {
    if (!["license", "title", "description"].includes(k))
      throw new ConfigError(`${where}: "catalog" has an unknown field "${k}" (license, title, description)`);
    if (typeof v !== "string" || !v) throw new ConfigError(`${where}: "catalog.${k}" must be a non-empty string`);
    if (k === "license" && !isLicense(v))
      throw new ConfigError(
        `${where}: "catalog.license" ${JSON.stringify(v)} is not an SPDX license id or expression (e.g. "CC-BY-4.0", "ODbL-1.0", "MIT OR Apache-2.0"), nor "other"; STAC requires one (https://spdx.org/licenses/)`,
      );
    out[k as keyof CatalogConfig] = v;
  }
  return out;
}

/** STAC 1.1: an SPDX license identifier or expression, or "other". */
function isLicense(text: string): boolean {
  if (text === "other") return true;
  try {
    parseSpdx(text);
    return true;
  } catch {
    return false;
  }
}

/**
 * What would otherwise fail every partition of a backfill, one by one and with an exit code engines retry: a pin
 * the versions file lacks, an upstream dataset the config does not name, and datasets that read each other's
 * partitions in a cycle (each would wait for the other forever, exit 75 on every try).
 */
function checkDatasets(
  datasets: Config["datasets"],
  broken: Config["broken"],
  versions: VersionsFile,
  where: string,
  versionsPath: string | undefined,
): void {
  const sameDateUpstreams = new Map<string, string[]>();
  // Readers of a broken dataset are broken too, until none is left to find (a chain breaks link by link).
  for (let found = true; found;) {
    found = false;
    for (const [name, { task }] of Object.entries(datasets)) {
      const bad = upstreamsOf(task, name).find((u) => Object.hasOwn(broken, u.dataset));
      if (!bad) continue;
      broken[name] = new ConfigError(
        `${where}: dataset '${name}' reads dataset:${bad.dataset}, whose entry is wrong: ${(broken[bad.dataset] as ConfigError).message}`,
      );
      delete datasets[name];
      found = true;
    }
  }
  for (const [name, { task }] of Object.entries(datasets)) {
    const missing = (task.pins ?? []).filter((pin) => !Object.hasOwn(versions, pin));
    if (missing.length)
      throw new ConfigError(
        `${where}: dataset '${name}' (task ${task.name}) needs pin${missing.length > 1 ? "s" : ""} ${missing.map((p) => `'${p}'`).join(", ")}, which ${versionsPath ? `the versions file ${versionsPath} does not have` : 'need a versions file ("versions": "./versions.json")'}: add each with its [{ "from": "YYYY-MM-DD", "value": "…" }] history`,
      );
    const badRegion = Array.isArray(task.regions) ? task.regions.find((r) => !NAME.test(r)) : undefined;
    if (badRegion !== undefined)
      throw new ConfigError(
        `${where}: dataset '${name}' (task ${task.name}) has a region named ${nameShown(badRegion)}, which is not allowed: use ${NAME_RULE}`,
      );
    const upstreams = upstreamsOf(task, name);
    for (const u of upstreams)
      if (!Object.hasOwn(datasets, u.dataset))
        throw new ConfigError(
          `${where}: dataset '${name}' reads dataset:${u.dataset}, which this config does not name (datasets: ${Object.keys(datasets).join(", ")}); add it, or fix the input's name`,
        );
    sameDateUpstreams.set(
      name,
      upstreams.filter((u) => u.samePartition).map((u) => u.dataset),
    );
  }
  // A dataset reading its own partition, or a ring of datasets each reading the next's same partition.
  const state = new Map<string, "visiting" | "done">();
  const visit = (name: string, path: string[]): void => {
    if (state.get(name) === "done") return;
    if (state.get(name) === "visiting") {
      const ring = [...path.slice(path.indexOf(name)), name];
      throw new ConfigError(
        `${where}: datasets read each other's partitions in a cycle (${ring.join(" → ")}): none of them could ever run. Remove one of these dataset: inputs`,
      );
    }
    state.set(name, "visiting");
    for (const next of sameDateUpstreams.get(name) ?? []) visit(next, [...path, name]);
    state.set(name, "done");
  };
  for (const name of [...sameDateUpstreams.keys()].sort()) visit(name, []);
}

function inputsOf(raw: unknown, where: string): Config["inputs"] {
  if (raw === undefined) return { allowHosts: [] };
  if (typeof raw !== "object" || raw === null || Array.isArray(raw))
    throw new ConfigError(`${where}: "inputs" must be an object ({ "allowHosts": [...], "maxBytes": "8GiB" })`);
  const out: Config["inputs"] = { allowHosts: [] };
  for (const [k, v] of Object.entries(raw)) {
    if (k === "allowHosts") {
      if (!Array.isArray(v) || v.some((h) => typeof h !== "string"))
        throw new ConfigError(
          `${where}: "inputs.allowHosts" must be a list of host names, *.suffixes, addresses or CIDR ranges`,
        );
      try {
        new AllowList(v as string[], `${where}: "inputs.allowHosts"`);
      } catch (error) {
        throw new ConfigError((error as Error).message);
      }
      out.allowHosts = v as string[];
    } else if (k === "maxBytes") {
      try {
        out.maxBytes =
          typeof v === "number" && Number.isSafeInteger(v) && v > 0
            ? v
            : parseBytes(String(v), `${where}: "inputs.maxBytes"`);
      } catch (error) {
        throw new ConfigError((error as Error).message);
      }
    } else throw new ConfigError(`${where}: "inputs" has an unknown field "${k}" (allowHosts, maxBytes)`);
  }
  return out;
}
