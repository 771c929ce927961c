import { readFile } from "node:fs/promises";
import { dirname, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { FORMATS } from "../geoparquet/metadata.js";
import type { GeoParquetFormat } from "../geoparquet/metadata.js";
import { checkVersionsFile } from "./pins.js";
import type { VersionsFile } from "./pins.js";
import type { TaskDefinition } from "./task.js";
import { loadTask } from "./task-ref.js";
import type { TaskRef } from "./task-ref.js";
import { GeorefreshError } from "../errors.js";

/**
 * georefresh.config.json:
 * { "store": "./data", "versions": "./versions.json",
 *   "datasets": { "<name>": { "task": "<built-in task>" } | { "module": "./my-task.js", "export": "default" }, "params": {…},
 *                 "catalog": { "license": "CC-BY-4.0", "title": "…", "description": "…" },
 *                 "format": "geoparquet-1.1" | "geoparquet-2.0" } } }
 */
export interface Config {
  path: string;
  store: string;
  versions: VersionsFile;
  datasets: Record<
    string,
    { task: TaskDefinition; ref: TaskRef; params: Record<string, unknown>; catalog: CatalogConfig }
  >;
}

/** What the STAC Collection says of a dataset (docs/stac.md); license defaults to "other". */
export interface CatalogConfig {
  license?: string;
  title?: string;
  description?: string;
}

export class ConfigError extends GeorefreshError {}

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

export async function loadConfig(path: string, builtins: Builtins, storeOverride?: string): Promise<Config> {
  const full = resolve(path);
  const base = dirname(full);
  const doc = (await readJson(full, "config")) as { store?: unknown; versions?: unknown; datasets?: unknown };
  if (typeof doc.datasets !== "object" || doc.datasets === null)
    throw new ConfigError(`${full}: "datasets" must be an object of dataset name → { task | module }`);
  const store = storeOverride ?? (typeof doc.store === "string" ? doc.store : undefined);
  if (!store)
    throw new ConfigError(`${full}: "store" is missing (a directory, file://, memory://, s3:// or az:// URL)`);
  const versions =
    doc.versions === undefined
      ? {}
      : checkVersionsFile(await readJson(resolve(base, String(doc.versions)), "versions file"), String(doc.versions));
  const datasets: Config["datasets"] = {};
  for (const name of Object.keys(doc.datasets as object)) {
    if (!/^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$/.test(name)) {
      throw new ConfigError(
        `${full}: dataset name ${JSON.stringify(name)} is not allowed: use 1–128 letters, digits, '_', '.', '-' (no '/', '..' or control characters)`,
      );
    }
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
      }
    >,
  )) {
    let ref: TaskRef;
    if (raw.task) {
      if (!builtins.tasks[raw.task])
        throw new ConfigError(
          `${full}: dataset '${name}' names task '${raw.task}', which is not built in (${Object.keys(builtins.tasks).join(", ")}); use "module" for your own`,
        );
      ref = { module: builtins.module, export: builtins.export, key: raw.task };
    } else if (raw.module) {
      ref = { module: pathToFileURL(resolve(base, raw.module)).href, export: raw.export ?? "default" };
    } else throw new ConfigError(`${full}: dataset '${name}' needs "task" (built in) or "module" (your own)`);
    if (raw.format !== undefined) {
      if (!FORMATS.includes(raw.format as GeoParquetFormat))
        throw new ConfigError(
          `${full}: dataset '${name}': "format" must be one of ${FORMATS.map((f) => JSON.stringify(f)).join(", ")} (got ${JSON.stringify(raw.format)})`,
        );
      ref = { ...ref, format: raw.format as GeoParquetFormat };
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
    };
  }
  const storeUrl = /^[a-z][a-z0-9+.-]*:\/\//i.test(store) ? store : resolve(base, store);
  return { path: full, store: storeUrl, versions, datasets };
}

function catalogOf(raw: unknown, where: string): CatalogConfig {
  if (raw === undefined) return {};
  if (typeof raw !== "object" || raw === null) throw new ConfigError(`${where}: "catalog" must be an object`);
  const out: CatalogConfig = {};
  for (const [k, v] of Object.entries(raw)) {
    if (!["license", "title", "description"].includes(k))
      throw new ConfigError(`${where}: "catalog" has an unknown field "${k}" (license, title, description)`);
    if (typeof v !== "string" || !v) throw new ConfigError(`${where}: "catalog.${k}" must be a non-empty string`);
    out[k as keyof CatalogConfig] = v;
  }
  return out;
}
