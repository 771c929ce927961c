import { isAbsolute, resolve } from "node:path";
import { FORMATS } from "../geoparquet/metadata.js";
import type { GeoParquetFormat } from "../geoparquet/metadata.js";
import { eventsProblems } from "./task.js";
import type { TaskDefinition } from "./task.js";
import { GeorefreshError } from "../errors.js";
import type { ErrorCode } from "../errors.js";

/**
 * Where a task's code lives, so another thread can load the same task: a module URL, the export, and an
 * optional key when the export is a record of tasks (the built-ins).
 */
export interface TaskRef {
  module: string;
  export: string;
  key?: string;
  /** The dataset's config entry overrides the task's file format (so threads see it too). */
  format?: GeoParquetFormat;
  /** The dataset's config entry overrides what the outbox announces (docs/changes.md). */
  events?: "partition" | "changes";
  initialEvents?: boolean;
  /**
   * A dataset declared by config alone: the export is a factory of tasks, called with this plain value (a
   * `source` entry, docs/sources.md), so every thread builds the same task from the same data.
   */
  factoryArgument?: unknown;
  /** The config file's folder: a task's relative input paths resolve against it, as the store's path does. */
  inputBase?: string;
}

export class TaskLoadError extends GeorefreshError {
  override readonly code: ErrorCode = "TaskLoad";
}

export async function loadTask(ref: TaskRef): Promise<TaskDefinition> {
  const mod = (await import(ref.module)) as Record<string, unknown>;
  let value = mod[ref.export];
  if (ref.key !== undefined) value = (value as Record<string, unknown> | undefined)?.[ref.key];
  if (ref.factoryArgument !== undefined && typeof value === "function")
    value = (value as (argument: unknown) => unknown)(ref.factoryArgument);
  const task = value as TaskDefinition | undefined;
  if (!task || typeof task.compute !== "function") {
    throw new TaskLoadError(`${ref.module} has no task at export '${ref.export}'${ref.key ? `['${ref.key}']` : ""}`);
  }
  const format = ref.format ?? task.format;
  if (format !== undefined && !FORMATS.includes(format))
    throw new TaskLoadError(`task ${task.name}: format ${JSON.stringify(format)} is not one of ${FORMATS.join(", ")}`);
  const withEvents = {
    ...task,
    ...(ref.events ? { events: ref.events } : {}),
    ...(ref.initialEvents !== undefined ? { initialEvents: ref.initialEvents } : {}),
  };
  const problems = eventsProblems(withEvents);
  if (problems.length) throw new TaskLoadError(`task ${task.name}: ${problems.join("; ")}`);
  const based =
    ref.inputBase === undefined ? withEvents : { ...withEvents, inputs: basedInputs(withEvents, ref.inputBase) };
  return ref.format ? { ...based, format: ref.format } : based;
}

/** A relative local path among a task's inputs, resolved against `base`; URLs, `dataset:` and absolute paths as they are. */
function basedInputs(task: TaskDefinition, base: string): TaskDefinition["inputs"] {
  return (partition) => {
    const named = task.inputs(partition);
    const out: Record<string, string> = {};
    for (const [name, uri] of Object.entries(named))
      out[name] = /^[a-z][a-z0-9+.-]*:/i.test(uri) || isAbsolute(uri) ? uri : resolve(base, uri);
    return out;
  };
}
