import { mapBounded } from "../../src/bounded.js";
import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { inject } from "vitest";
import { FsStore } from "../../src/store/fs.js";
import { MemoryStore } from "../../src/store/memory.js";
import { S3Store } from "../../src/store/s3.js";
import { AzureStore } from "../../src/store/azure.js";
import { BlobServiceClient, StorageSharedKeyCredential } from "@azure/storage-blob";
import type { BlockBlobClient, ContainerClient } from "@azure/storage-blob";
import type { ObjectStore } from "../../src/store/types.js";

/** A fresh, isolated store of one backend, plus the URL and env a child process needs to open the same one. */
export interface StoreFixture {
  store: ObjectStore;
  /** For openStore() in another process; undefined where objects cannot be shared across processes. */
  url: string | undefined;
  env: Record<string, string>;
  dispose(): Promise<void>;
}

export type Backend = "fs" | "memory" | "s3" | "azure";

export function s3Env(): Record<string, string> {
  const s3 = inject("s3");
  if (!s3) return {};
  return {
    AWS_ENDPOINT_URL_S3: s3.endpoint,
    AWS_ACCESS_KEY_ID: s3.accessKeyId,
    AWS_SECRET_ACCESS_KEY: s3.secretAccessKey,
    AWS_REGION: s3.region,
    GEOREFRESH_S3_PATH_STYLE: "true",
    ...(process.env.GEOREFRESH_S3_MIN_PART_BYTES
      ? { GEOREFRESH_S3_MIN_PART_BYTES: process.env.GEOREFRESH_S3_MIN_PART_BYTES }
      : {}),
  };
}

/** The environment a child process needs to open az:// URLs on the test Azurite (scripts/azurite.sh env). */
export function azureEnv(): Record<string, string> {
  const az = inject("azure");
  if (!az) return {};
  return { AZURE_STORAGE_ACCOUNT: az.account, AZURE_STORAGE_KEY: az.key, AZURE_STORAGE_BLOB_ENDPOINT: az.endpoint };
}

/** The environment a child process needs to open this backend's URLs (none for local stores). */
export function backendEnv(backend: Backend): Record<string, string> {
  return backend === "s3" ? s3Env() : backend === "azure" ? azureEnv() : {};
}

/** A container of the test Azurite through the SDK itself, for what a store never does (stage blocks and leave them). */
export function azureContainer(name?: string): ContainerClient {
  const az = inject("azure");
  if (!az) throw new Error("the Azurite test server is not configured (see test/setup/services.ts)");
  const service = new BlobServiceClient(az.endpoint, new StorageSharedKeyCredential(az.account, az.key));
  return service.getContainerClient(name ?? az.container);
}

/** The SDK's client for the blob an Azure fixture's store keeps under `key`. */
export function azureBlob(store: ObjectStore, key: string): BlockBlobClient {
  const az = store as AzureStore;
  return azureContainer(az.container).getBlockBlobClient(az.prefix ? `${az.prefix}/${key}` : key);
}

export function s3Available(): boolean {
  return inject("s3") !== null;
}

export async function openFixture(backend: Backend): Promise<StoreFixture> {
  if (backend === "memory") {
    const name = `test-${randomUUID()}`;
    return { store: new MemoryStore(name), url: undefined, env: {}, dispose: async () => MemoryStore.reset(name) };
  }
  if (backend === "fs") {
    const dir = mkdtempSync(join(tmpdir(), "georefresh-store-"));
    const store = new FsStore(dir);
    return { store, url: dir, env: {}, dispose: async () => rmSync(dir, { recursive: true, force: true }) };
  }
  if (backend === "azure") return azureFixture();
  const s3 = inject("s3");
  if (!s3) throw new Error("the S3 test server is not configured (see test/setup/services.ts)");
  const prefix = `t/${randomUUID()}`;
  const store = new S3Store({
    bucket: s3.bucket,
    prefix,
    endpoint: s3.endpoint,
    region: s3.region,
    forcePathStyle: true,
    credentials: { accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey },
  });
  return {
    store,
    url: `s3://${s3.bucket}/${prefix}`,
    env: s3Env(),
    dispose: async () => {
      const keys: string[] = [];
      for await (const entry of store.list("")) keys.push(entry.key);
      await mapLimit(keys, 32, (k) => store.delete(k));
      await store.close();
    },
  };
}

/**
 * Each fixture its own container (Azurite slows down as one container fills up: HEADs took 2.4× as long beside
 * 10,000 other blobs), with a prefix inside it so prefixes stay exercised; disposing drops the container.
 */
async function azureFixture(): Promise<StoreFixture> {
  const container = `t-${randomUUID()}`;
  await azureContainer(container).create();
  const env = azureEnv();
  const store = new AzureStore({ container, prefix: "p", env });
  return {
    store,
    url: `az://${container}/p`,
    env,
    dispose: async () => {
      await store.close();
      await azureContainer(container).delete();
    },
  };
}

/** Runs `fn` over items with at most `limit` in flight (the pipeline's own helper). */
export const mapLimit = mapBounded;
