import { InvalidArgumentError } from "commander";
import { existsSync } from "node:fs";
import { loadConfig, storeUrlOf } from "../config/config.js";
import type { Config } from "../config/config.js";
import { BUILTINS } from "../builtins/index.js";
import { GeorefreshError } from "../errors.js";
import type { ErrorCode } from "../errors.js";
import { parseBytes } from "../sizes.js";
import { nameShown } from "../manifest/layout.js";
import { allowListOf } from "../inputs/address-policy.js";
import { inputCap } from "../inputs/input-copy.js";

export interface CommonOptions {
  config: string;
  store?: string;
  json?: boolean;
}

export const CONFIG_HELP = "config file";
export const CONFIG_DEFAULT = "georefresh.config.json";

/** A flag left out where only one value could be meant (`cargo run` of one binary needs no --bin); else exit 2. */
export function onlyOne(flag: string, names: string[], what: string): string {
  if (names.length === 1) return names[0] as string;
  throw new UsageError(`${flag} is required: the ${what} are ${names.join(", ") || "none"}; name one`);
}

export class UsageError extends GeorefreshError {
  override readonly code: ErrorCode = "Usage";
}

/** A commander parser for whole-number options: `--concurrency abc` is a usage error (exit 2), never NaN. */
export function wholeNumber(min: number, max = Number.MAX_SAFE_INTEGER): (text: string) => number {
  return (text) => {
    const n = Number(text);
    if (!/^\s*\d+\s*$/.test(text) || !Number.isSafeInteger(n) || n < min || n > max)
      throw new InvalidArgumentError(
        `expected a whole number ${max === Number.MAX_SAFE_INTEGER ? `≥ ${min}` : `from ${min} to ${max}`}, got ${JSON.stringify(text)}`,
      );
    return n;
  };
}

/** A size option ("256MiB", "1GiB"): a usage error (exit 2) when it is not one. */
export function byteSize(what: string): (text: string) => number {
  return (text) => {
    try {
      return parseBytes(text, what);
    } catch (error) {
      throw new InvalidArgumentError((error as Error).message);
    }
  };
}

export async function openConfig(opts: CommonOptions): Promise<Config> {
  const config = await loadConfig(opts.config, BUILTINS, opts.store);
  applyInputSettings(config);
  return config;
}

/**
 * What a reading command reads: the store, and the config when there is one. `--store` alone needs no config file
 * (reading needs only the store), unless `--config` names one.
 */
export async function openReading(
  opts: Omit<CommonOptions, "config"> & { config?: string },
): Promise<{ store: string; config?: Config }> {
  if (opts.config === undefined && !existsSync(CONFIG_DEFAULT)) {
    if (opts.store) return { store: storeUrlOf(opts.store, process.cwd()) };
    throw new UsageError(
      `no ${CONFIG_DEFAULT} in ${process.cwd()}: give --store (a directory or URL) to read a store without a config, or --config PATH`,
    );
  }
  const config = await openConfig({ ...opts, config: opts.config ?? CONFIG_DEFAULT });
  return { store: config.store, config };
}

/**
 * The config's input settings reach every partition, on this thread, worker threads and worker processes alike,
 * through the environment they inherit: allowed hosts add to GEOREFRESH_ALLOW_HOSTS; a GEOREFRESH_MAX_INPUT_BYTES
 * already set wins over the config's maxBytes. Both are checked here, before anything runs.
 */
function applyInputSettings(config: Config): void {
  const env = process.env;
  if (config.inputs.allowHosts.length)
    env.GEOREFRESH_ALLOW_HOSTS = [env.GEOREFRESH_ALLOW_HOSTS, ...config.inputs.allowHosts].filter(Boolean).join(",");
  if (config.inputs.maxBytes !== undefined && !env.GEOREFRESH_MAX_INPUT_BYTES)
    env.GEOREFRESH_MAX_INPUT_BYTES = String(config.inputs.maxBytes);
  try {
    allowListOf();
    inputCap();
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

export function datasetOf(config: Config, name: string) {
  const ds = Object.hasOwn(config.datasets, name) ? config.datasets[name] : undefined;
  if (Object.hasOwn(config.broken, name)) throw config.broken[name] as Error;
  if (!ds) throw unknownDataset(config, name);
  return ds;
}

export function unknownDataset(config: Config, name: string): UsageError {
  return new UsageError(
    `no dataset ${nameShown(name)} in ${config.path} (datasets: ${Object.keys(config.datasets).join(", ") || "none"}); check the name`,
  );
}
