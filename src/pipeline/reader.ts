import type { Table } from "apache-arrow";
import { ManifestError, readManifest } from "../manifest/codec.js";
import type { Manifest, ManifestEntry } from "../manifest/types.js";
import { readGeoParquet } from "../geoparquet/read.js";
import { sha256Hex } from "../store/digest.js";
import { openStore } from "../store/open.js";
import type { ObjectStore } from "../store/types.js";
import { manifestKey, manifestPrefix, partitionOfManifestKey } from "../manifest/layout.js";
import { GeorefreshError } from "../errors.js";

export class ReadError extends GeorefreshError {}

export interface PartitionState {
  region: string;
  date: string;
  manifest: Manifest;
}

/** Which partition to read: a logical date, or the latest date that has a current, unretired artifact. */
export type Which = { date: string } | { latest: true };

/**
 * Reads a dataset the way analysts should: through its manifests, so a reader only ever sees promoted
 * artifacts, and every artifact's bytes are checked against the sha256 its manifest recorded before use.
 */
export class Dataset {
  constructor(
    readonly store: ObjectStore,
    readonly name: string,
  ) {}

  /**
   * Every partition's manifest, and the manifests that could not be read (not JSON, schema-invalid, tampered),
   * each with its message: one bad manifest does not hide the rest. A listing the store refuses still throws.
   */
  async scan(region?: string): Promise<{ partitions: PartitionState[]; problems: { key: string; message: string }[] }> {
    const partitions: PartitionState[] = [];
    const problems: { key: string; message: string }[] = [];
    for await (const e of this.store.list(manifestPrefix(this.name, region))) {
      const p = partitionOfManifestKey(e.key);
      if (!p) continue;
      try {
        const found = await readManifest(this.store, e.key);
        if (found) partitions.push({ region: p.region, date: p.date, manifest: found.manifest });
      } catch (error) {
        if (!(error instanceof ManifestError)) throw error;
        problems.push({ key: e.key, message: error.message });
      }
    }
    return { partitions, problems };
  }

  /** Every partition's manifest; throws on the first that cannot be read (use scan() to carry on past it). */
  async partitions(region?: string): Promise<PartitionState[]> {
    const { partitions, problems } = await this.scan(region);
    if (problems[0]) throw new ManifestError(problems[0].message);
    return partitions;
  }

  async manifest(region: string, which: Which): Promise<Manifest> {
    if ("date" in which) {
      const found = await readManifest(this.store, manifestKey({ dataset: this.name, region, date: which.date }));
      if (!found) throw new ReadError(`${this.name}: no manifest for region ${region} on ${which.date}`);
      return found.manifest;
    }
    const live = (await this.partitions(region))
      .filter((p) => p.manifest.current && !p.manifest.retired)
      .sort((a, b) => (a.date < b.date ? 1 : -1));
    if (!live[0]) throw new ReadError(`${this.name}: region ${region} has no promoted, unretired partition`);
    return live[0].manifest;
  }

  /** The current artifact's bytes, verified against the manifest's sha256. */
  async bytes(region: string, which: Which): Promise<{ entry: ManifestEntry; bytes: Uint8Array }> {
    const m = await this.manifest(region, which);
    const entry = m.current;
    if (!entry) throw new ReadError(`${this.name} ${region} ${m.partition.logical_date}: nothing promoted yet`);
    const { body } = await this.store.get(entry.artifact);
    const sha = sha256Hex(body);
    if (sha !== entry.sha256)
      throw new ReadError(
        `${this.store.locate(entry.artifact)} has sha256 ${sha}, but its manifest promised ${entry.sha256}: refusing to return it`,
      );
    return { entry, bytes: body };
  }

  async read(region: string, which: Which): Promise<{ entry: ManifestEntry; table: Table }> {
    const { entry, bytes } = await this.bytes(region, which);
    return { entry, table: (await readGeoParquet(bytes, this.store.locate(entry.artifact))).table };
  }
}

export function openDataset(storeUrl: string | ObjectStore, name: string): Dataset {
  return new Dataset(typeof storeUrl === "string" ? openStore(storeUrl) : storeUrl, name);
}
