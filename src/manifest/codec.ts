import { getIfPresent } from "../store/get-if-present.js";
import type { ObjectStore } from "../store/types.js";
import { artifactKey, partitionOfManifestKey } from "./layout.js";
import { validate as compiled } from "./schema-validator.js";
import type { Manifest } from "./types.js";
import { GeorefreshError } from "../errors.js";
import type { ErrorCode } from "../errors.js";

export class ManifestError extends GeorefreshError {
  override readonly code: ErrorCode = "Manifest";
}

/** manifest.schema.json (the contract, at the package root), compiled by Ajv ahead of time (schema-validator.ts). */
const validate = compiled as unknown as {
  (doc: unknown): doc is Manifest;
  errors?: { instancePath: string; message?: string }[] | null;
};

/** An instant the schema's pattern admits that names no real time (2026-02-30T…, 25:00): where it stands. */
function unrealInstant(m: Manifest): string | undefined {
  const real = (t: string) => {
    const d = new Date(t);
    return !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 19) === t.slice(0, 19);
  };
  const entries = [
    ...(m.current ? [["/current", m.current] as const] : []),
    ...m.history.map((e, i) => [`/history/${i}`, e] as const),
  ];
  for (const [at, e] of entries)
    if (!real(e.promoted_at)) return `${at}/promoted_at ${JSON.stringify(e.promoted_at)} is no real time`;
  if (m.retired?.at !== undefined && !real(m.retired.at))
    return `/retired/at ${JSON.stringify(m.retired.at)} is no real time`;
  return undefined;
}

function check(doc: unknown, where: string): Manifest {
  const valid = validate(doc);
  if (!valid || unrealInstant(doc)) {
    const why = valid
      ? (unrealInstant(doc) as string)
      : (validate.errors ?? []).map((e) => `${e.instancePath || "/"} ${e.message ?? ""}`).join("; ");
    throw new ManifestError(
      `${where} is not a valid manifest (manifest.schema.json): ${why}. It was left untouched; fix or remove it by hand`,
    );
  }
  return doc;
}

/** A manifest whose content does not belong where it was read: it names another partition, or another partition's artifact. */
export class TamperedManifestError extends ManifestError {
  override readonly code: ErrorCode = "TamperedManifest";

  constructor(message: string) {
    super(message);
    this.name = "TamperedManifestError";
  }
}

/**
 * Binds a manifest to its key: it must describe the partition its key names, and every entry must point at
 * exactly that partition's artifact for the entry's key. Without this, a manifest edited to name another
 * partition's artifact would be served by `read`, pass as "unchanged", and make gc delete the real one.
 */
function checkBinding(manifest: Manifest, key: string, where: string): Manifest {
  const p = partitionOfManifestKey(key);
  if (!p) return manifest; // not a partition manifest key (a test's scratch key): nothing to bind to
  const wrong = (what: string) =>
    new TamperedManifestError(
      `${where} is a tampered or corrupt manifest: ${what}. Nothing was read through it or changed; restore it from a backup, or delete it so the next run rebuilds the partition`,
    );
  if (
    manifest.dataset !== p.dataset ||
    manifest.partition.region !== p.region ||
    manifest.partition.logical_date !== p.date
  ) {
    throw wrong(
      `it describes ${manifest.dataset} ${manifest.partition.region} ${manifest.partition.logical_date}, but its key is ${p.dataset} ${p.region} ${p.date}`,
    );
  }
  for (const entry of [manifest.current, ...manifest.history]) {
    if (entry && entry.artifact !== artifactKey(p, entry.key))
      throw wrong(
        `entry ${entry.key} points at ${entry.artifact}, not at this partition's ${artifactKey(p, entry.key)}`,
      );
  }
  return manifest;
}

/** The manifest and the version it was read at (for If-Match), or undefined when there is none. */
export async function readManifest(
  store: ObjectStore,
  key: string,
): Promise<{ manifest: Manifest; version: string } | undefined> {
  const got = await getIfPresent(store, key);
  if (!got) return undefined;
  let doc: unknown;
  try {
    doc = JSON.parse(new TextDecoder().decode(got.body));
  } catch (error) {
    throw new ManifestError(
      `${store.locate(key)} is not JSON (${(error as Error).message}). It was left untouched; fix or remove it by hand`,
    );
  }
  return { manifest: checkBinding(check(doc, store.locate(key)), key, store.locate(key)), version: got.meta.version };
}

/** Serialises a manifest after checking it against the schema: an invalid manifest is never written. */
export function encodeManifest(manifest: Manifest, where: string): Uint8Array {
  return new TextEncoder().encode(`${JSON.stringify(check(manifest, where), null, 2)}\n`);
}
