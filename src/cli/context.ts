import { loadConfig } from "../pipeline/config.js";
import type { Config } from "../pipeline/config.js";
import { BUILTINS } from "../tasks/index.js";

export interface CommonOptions {
  config: string;
  store?: string;
  json?: boolean;
}

export const CONFIG_HELP = "config file (default ./georefresh.config.json)";

export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "UsageError";
  }
}

export async function openConfig(opts: CommonOptions): Promise<Config> {
  return loadConfig(opts.config, BUILTINS, opts.store);
}

export function datasetOf(config: Config, name: string) {
  const ds = config.datasets[name];
  if (!ds) throw new UsageError(`no dataset '${name}' in ${config.path} (datasets: ${Object.keys(config.datasets).join(", ")})`);
  return ds;
}
