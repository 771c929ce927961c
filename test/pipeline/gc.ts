/** gc on a real store: removes only what readers never see, only when old enough, only with --apply. */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  CreateMultipartUploadCommand,
  ListMultipartUploadsCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
} from "@aws-sdk/client-s3";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { outboxId, outboxKey, recordEvent } from "../../src/manifest/outbox.js";
import { collectGarbage } from "../../src/gc/gc.js";
import { refreshPartition } from "../../src/protocol/refresh.js";
import { CountingStore } from "../../src/store/counting.js";
import { S3Store } from "../../src/store/s3.js";
import type { AzureStore } from "../../src/store/azure.js";
import type { ObjectStore } from "../../src/store/types.js";
import { pointsTask, VERSIONS, writePoints } from "../helpers/points-task.js";
import { snapshot } from "../helpers/snapshot.js";
import { azureBlob, azureContainer, openFixture } from "../helpers/stores.js";
import type { Backend, StoreFixture } from "../helpers/stores.js";

const DAY = 86_400_000;

export function describeGc(backend: Backend): void {
  describe(`gc on ${backend}`, () => {
    let fx: StoreFixture;
    let store: ObjectStore;
    let dir: string;
    const stray = "artifacts/gc/region=north/date=2026-01-01/ffffffffffffffff.parquet";
    const temp = "_tmp/gc/3f6c0c1e-run/abcdef0123456789.parquet";
    beforeAll(async () => {
      fx = await openFixture(backend);
      store = fx.store;
      dir = mkdtempSync(join(tmpdir(), "georefresh-gc-"));
      const input = join(dir, "in.json");
      const partition = { dataset: "gc", region: "north", date: "2026-01-01" };
      writePoints(input, 20);
      await refreshPartition({ store, task: pointsTask(input), partition, versions: VERSIONS });
      writePoints(input, 22);
      await refreshPartition({ store, task: pointsTask(input), partition, versions: VERSIONS }); // history now holds the first
      await store.put(stray, new Uint8Array([1, 2, 3]));
      await store.put(temp, new Uint8Array([4, 5, 6]));
      await recordEvent(store, {
        id: outboxId("gc", "north", "2026-01-01", "e".repeat(64)),
        dataset: "gc",
        region: "north",
        logical_date: "2026-01-01",
        artifact: "x",
        sha256: "e".repeat(64),
        rows: 1,
        previous_sha256: null,
      });
    });
    afterAll(async () => {
      await fx.dispose();
      rmSync(dir, { recursive: true, force: true });
    });

    it("touches nothing younger than the floor", async () => {
      const before = await snapshot(store);
      const r = await collectGarbage(store, { olderThanMs: DAY, apply: true, artifacts: { keep: 0 } });
      expect([...r.temp, ...r.outbox, ...r.artifacts]).toEqual([]);
      expect(await snapshot(store)).toEqual(before);
    });

    it("a dry run lists the leftovers and deletes nothing", async () => {
      const before = await snapshot(store);
      const r = await collectGarbage(store, {
        olderThanMs: DAY,
        apply: false,
        artifacts: { keep: 0 },
        now: new Date(Date.now() + 2 * DAY),
      });
      expect(r).toMatchObject({
        applied: false,
        temp: [temp],
        outbox: [outboxKey("gc", outboxId("gc", "north", "2026-01-01", "e".repeat(64)))],
        artifacts: [stray],
      });
      expect(await snapshot(store)).toEqual(before);
    });

    it("--keep spares the newest unreferenced artifacts; --apply removes the rest and never a referenced one", async () => {
      const kept = await collectGarbage(store, {
        olderThanMs: DAY,
        apply: false,
        artifacts: { keep: 1 },
        now: new Date(Date.now() + 2 * DAY),
      });
      expect(kept.artifacts).toEqual([]);
      const before = await snapshot(store);
      const r = await collectGarbage(store, {
        olderThanMs: DAY,
        apply: true,
        artifacts: { keep: 0 },
        now: new Date(Date.now() + 2 * DAY),
      });
      const after = await snapshot(store);
      const removed = Object.keys(before).filter((k) => !(k in after));
      expect(removed.sort()).toEqual([...r.temp, ...r.outbox, ...r.artifacts].sort());
      expect(removed).toHaveLength(3);
      // Both promoted artifacts (current and history) and every manifest are still there, byte for byte.
      for (const [k, v] of Object.entries(before))
        if (k.startsWith("manifests/") || (k.startsWith("artifacts/") && k !== stray)) expect(after[k]).toBe(v);
      expect(Object.keys(after).filter((k) => k.startsWith("artifacts/"))).toHaveLength(2);
    });

    if (backend === "azure") {
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
    }

    if (backend === "s3") {
      it("passes over console \"folder\" objects (zero-byte keys ending in '/') instead of failing on them", async () => {
        const s3 = inject("s3");
        if (!s3 || !(store instanceof S3Store)) throw new Error("needs the S3 fixture");
        const client = new S3Client({
          endpoint: s3.endpoint,
          region: s3.region,
          forcePathStyle: true,
          credentials: { accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey },
        });
        for (const folder of ["_tmp/", "artifacts/", "outbox/", "manifests/"])
          await client.send(new PutObjectCommand({ Bucket: s3.bucket, Key: `${store.prefix}/${folder}`, Body: "" }));
        const r = await collectGarbage(store, {
          olderThanMs: DAY,
          apply: true,
          artifacts: { keep: 0 },
          now: new Date(Date.now() + 2 * DAY),
        });
        expect([...r.temp, ...r.artifacts, ...r.outbox]).toEqual([]);
        expect(r.skipped).toEqual([]);
        const listed: string[] = [];
        for await (const e of store.list("")) listed.push(e.key);
        expect(listed.filter((k) => k.endsWith("/"))).toEqual([]);
        const raw = await client.send(new ListObjectsV2Command({ Bucket: s3.bucket, Prefix: `${store.prefix}/_tmp/` }));
        expect((raw.Contents ?? []).map((c) => c.Key)).toEqual([`${store.prefix}/_tmp/`]); // left as it was
        client.destroy();
      });

      it("aborts stale multipart uploads", async () => {
        const s3 = inject("s3");
        if (!s3 || !(store instanceof S3Store)) throw new Error("needs the S3 fixture");
        const client = new S3Client({
          endpoint: s3.endpoint,
          region: s3.region,
          forcePathStyle: true,
          credentials: { accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey },
        });
        const key = `${store.prefix}/artifacts/gc/partial.parquet`;
        await client.send(new CreateMultipartUploadCommand({ Bucket: s3.bucket, Key: key }));
        const young = await collectGarbage(store, { olderThanMs: DAY, apply: true });
        expect(young.uploads).toEqual([]);
        // Through a wrapper: the capability passes through CountingStore (and is counted).
        const counted = new CountingStore(store);
        const old = await collectGarbage(counted, {
          olderThanMs: DAY,
          apply: true,
          now: new Date(Date.now() + 2 * DAY),
        });
        expect(old.uploads).toHaveLength(1);
        expect(counted.calls.delete).toBeGreaterThanOrEqual(1);
        const left = await client.send(
          new ListMultipartUploadsCommand({ Bucket: s3.bucket, Prefix: `${store.prefix}/` }),
        );
        expect(left.Uploads ?? []).toEqual([]);
        client.destroy();
      });
    }
  });
}
