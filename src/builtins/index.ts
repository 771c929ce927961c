import type { TaskDefinition } from "../task/task.js";
import { cityCatchments } from "./city-catchments.js";
import { countyPoints } from "./county-points.js";
import { usCounties } from "./us-counties.js";

/** Built-in tasks, by the name a config's dataset entry gives as "task". */
export const BUILTIN_TASKS: Record<string, TaskDefinition> = {
  [usCounties.name]: usCounties,
  [cityCatchments.name]: cityCatchments,
  [countyPoints.name]: countyPoints,
};

/** Where BUILTIN_TASKS can be imported from, so worker threads load the same tasks. */
export const BUILTINS = { tasks: BUILTIN_TASKS, module: import.meta.url, export: "BUILTIN_TASKS" };
