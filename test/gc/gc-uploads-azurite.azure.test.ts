/** gc on Azure: the uncommitted blocks of an upload that died are removed once old, and a blob committed late never. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { collectGarbage } from "../../src/gc/gc.js";
import { CountingStore } from "../../src/store/counting.js";
import type { AzureStore } from "../../src/store/azure.js";
import type { ObjectStore } from "../../src/store/types.js";
import { azureBlob, azureContainer, azuriteHarness } from "../store/harness/azurite.js";
import type { StoreFixture } from "../store/harness/index.js";

const DAY = 86_400_000;

describe("gc of dead uploads (azure)", () => {
  let fx: StoreFixture;
  let store: ObjectStore;
  beforeAll(async () => {
    fx = await azuriteHarness.open();
    store = fx.store;
  });
  afterAll(async () => fx.dispose());

  it("removes the uncommitted blocks of dead uploads once old enough, and never a committed blob", async () => {
    const az = store as AzureStore;
    const blobs = azureContainer(az.container);
    const name = (key: string) => `${az.prefix}/${key}`;
    const id = Buffer.from("dead-000000").toString("base64");
    await blobs.getBlockBlobClient(name("artifacts/gc/partial.parquet")).stageBlock(id, Buffer.from("abc"), 3);
    await store.put("artifacts/gc/empty.parquet", new Uint8Array(0)); // committed, and as empty as a dead upload
    const young = await collectGarbage(store, { olderThanMs: DAY, apply: true });
    expect(young.uploads).toEqual([]);
    const counted = new CountingStore(store);
    const old = await collectGarbage(counted, {
      olderThanMs: DAY,
      apply: true,
      now: new Date(Date.now() + 2 * DAY),
    });
    expect(old.uploads).toEqual([expect.stringMatching(/^artifacts\/gc\/partial\.parquet \(upload /)]);
    const left: string[] = [];
    for await (const b of blobs.listBlobsFlat({ prefix: `${az.prefix}/`, includeUncommitedBlobs: true }))
      left.push(b.name);
    expect(left).not.toContain(name("artifacts/gc/partial.parquet"));
    expect(await store.exists("artifacts/gc/empty.parquet")).toBe(true);
    await store.delete("artifacts/gc/empty.parquet");
  });

  it("never deletes a blob committed after it was listed as an upload", async () => {
    const az = store as AzureStore;
    const blob = azureBlob(store, "artifacts/gc/late.parquet");
    const id = Buffer.from("late-000000").toString("base64");
    await blob.stageBlock(id, Buffer.from("late"), 4);
    const uploads = [];
    for await (const u of az.staleUploads(new Date(Date.now() + DAY))) uploads.push(u);
    const late = uploads.find((u) => u.key === "artifacts/gc/late.parquet");
    expect(late).toBeDefined();
    await new Promise((r) => setTimeout(r, 1100)); // the commit lands in a later second than the listing saw
    await blob.commitBlockList([id]);
    await az.abortUpload(late!.key, late!.uploadId);
    expect(new TextDecoder().decode((await store.get("artifacts/gc/late.parquet")).body)).toBe("late");
    await store.delete("artifacts/gc/late.parquet");
  });
});
