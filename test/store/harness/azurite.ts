import { randomUUID } from "node:crypto";
import { BlobServiceClient, StorageSharedKeyCredential } from "@azure/storage-blob";
import type { BlockBlobClient, ContainerClient } from "@azure/storage-blob";
import { inject } from "vitest";
import { AzureStore } from "../../../src/store/azure.js";
import type { ObjectStore } from "../../../src/store/types.js";
import type { StoreHarness } from "./harness.js";

/** The environment a child process needs to open az:// URLs on the test Azurite (scripts/azurite.sh env). */
export function azureEnv(): Record<string, string> {
  const az = inject("azure");
  if (!az) return {};
  return { AZURE_STORAGE_ACCOUNT: az.account, AZURE_STORAGE_KEY: az.key, AZURE_STORAGE_BLOB_ENDPOINT: az.endpoint };
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

/**
 * Azure Blob Storage on the test Azurite. Each fixture is its own container (Azurite slows down as one container
 * fills up: HEADs took 2.4× as long beside 10,000 other blobs), with a prefix inside it so prefixes stay exercised;
 * disposing drops the container.
 */
export const azuriteHarness: StoreHarness = {
  name: "azure",
  capabilities: { crossProcess: true, predictsVersions: false, listing: "native", listedVersions: true, remote: true },
  // A blob put in blocks lists them as committed; one Put Blob has none.
  uploads: {
    async partsOf(store, key) {
      const blocks = await azureBlob(store, key).getBlockList("committed");
      return blocks.committedBlocks?.length ?? 0;
    },
  },
  unavailable: () => (inject("azure") ? undefined : "GEOREFRESH_SKIP_AZURE=1 left Azurite out"),
  async open() {
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
  },
};
