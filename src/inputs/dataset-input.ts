import { readManifest } from "../manifest/codec.js";
import { checkPartition, manifestKey } from "../manifest/layout.js";
import type { Partition } from "../manifest/layout.js";
import { sha256Hex } from "../store/digest.js";
import type { ObjectStore } from "../store/types.js";
import type { InputKind, ResolvedInput } from "./identity.js";
import { InputIdentityError } from "./identity-error.js";
import { GeorefreshError } from "../errors.js";
import type { ErrorCode } from "../errors.js";
import { copyToFile } from "./input-copy.js";

/**
 * An upstream dataset as an input: `dataset:<name>` is that dataset's partition for the run's own region and
 * logical date; `dataset:<name>?region=R&date=D` names another. It resolves through the upstream partition's
 * manifest in the run's store, captured once at run start (a promotion upstream during the run is not mixed in:
 * the artifact it pointed at is write-once). The identity is that artifact's sha256, so an upstream change makes
 * a new downstream key.
 */
export class UpstreamMissingError extends GeorefreshError {
  override readonly code: ErrorCode = "UpstreamMissing";
}

export const isDatasetInput = (uri: string) => uri.startsWith("dataset:");

/**
 * The upstream datasets a task reads, as its inputs name them for a sample partition of `dataset`; samePartition
 * when the input names no other region or date (so reading it waits for that dataset's same partition). Empty
 * when the task's inputs cannot be asked without a real partition (the run then checks them itself).
 */
export function upstreamsOf(
  task: { inputs(p: Partition): Record<string, string>; regions: unknown },
  dataset: string,
): { dataset: string; samePartition: boolean }[] {
  const region = Array.isArray(task.regions) && typeof task.regions[0] === "string" ? task.regions[0] : "sample";
  let inputs: Record<string, string>;
  try {
    inputs = task.inputs({ dataset, region, date: "2000-01-01" });
  } catch {
    return [];
  }
  const out: { dataset: string; samePartition: boolean }[] = [];
  for (const uri of Object.values(inputs ?? {})) {
    if (typeof uri !== "string" || !isDatasetInput(uri)) continue;
    const m = /^dataset:([^?]*)(?:\?(.*))?$/.exec(uri);
    if (!m) continue;
    const query = new URLSearchParams(m[2] ?? "");
    out.push({ dataset: m[1] as string, samePartition: !query.has("region") && !query.has("date") });
  }
  return out;
}

/** `dataset:<name>` made explicit for a partition: `dataset:<name>?region=R&date=D` (the form manifests record). */
export function concreteDatasetInput(uri: string, partition: Partition): string {
  const upstream = parseDatasetInput(uri, partition);
  return `dataset:${upstream.dataset}?region=${upstream.region}&date=${upstream.date}`;
}

function parseDatasetInput(uri: string, partition?: Partition): Partition {
  const m = /^dataset:([^?]*)(?:\?(.*))?$/.exec(uri);
  const query = new URLSearchParams(m?.[2] ?? "");
  const unknown = [...query.keys()].filter((k) => k !== "region" && k !== "date");
  if (!m || unknown.length)
    throw new InputIdentityError(
      `input ${uri}: expected dataset:<name> or dataset:<name>?region=R&date=YYYY-MM-DD${unknown.length ? ` (unknown: ${unknown.join(", ")})` : ""}`,
    );
  const region = query.get("region") ?? partition?.region;
  const date = query.get("date") ?? partition?.date;
  if (region === undefined || date === undefined)
    throw new InputIdentityError(
      `input ${uri}: name the region and date (dataset:<name>?region=R&date=D) outside a partition`,
    );
  try {
    return checkPartition({ dataset: m[1] as string, region, date });
  } catch (error) {
    throw new InputIdentityError(`input ${uri}: ${(error as Error).message}`);
  }
}

export async function resolveDatasetInput(uri: string, store: ObjectStore): Promise<ResolvedInput> {
  const upstream = parseDatasetInput(uri);
  const found = await readManifest(store, manifestKey(upstream));
  const current = found?.manifest.current;
  if (!current || found?.manifest.retired) {
    const why = !found ? "has no manifest" : found.manifest.retired ? "is retired" : "has nothing promoted";
    throw new UpstreamMissingError(
      `upstream ${upstream.dataset} ${upstream.region} ${upstream.date} ${why}: run its backfill first (georefresh backfill --dataset ${upstream.dataset} …); nothing was written, a re-run picks it up`,
    );
  }
  const identity = `sha256:${current.sha256}`;
  const read = async () => {
    const bytes = (await store.get(current.artifact)).body;
    if (`sha256:${sha256Hex(bytes)}` !== identity)
      throw new InputIdentityError(
        `input ${uri}: ${store.locate(current.artifact)} does not hold the bytes its manifest names (${identity}); the store was altered`,
      );
    return bytes;
  };
  let copy: Promise<string> | undefined;
  return {
    uri,
    identity,
    read,
    path: () => (copy ??= read().then(async (bytes) => (await copyToFile([bytes], uri, Infinity)).path)),
  };
}

/** `dataset:` URIs: an upstream dataset's partition in the run's own store. */
export const datasetInput: InputKind = {
  name: "dataset",
  matches: isDatasetInput,
  resolve(uri, context) {
    if (!context.store)
      throw new InputIdentityError(
        `input ${uri}: an upstream dataset is read from the run's store, and there is none here`,
      );
    return resolveDatasetInput(uri, context.store);
  },
};
