/** gc on S3: console "folder" objects are passed over, and stale multipart uploads aborted. */
import {
  CreateMultipartUploadCommand,
  ListMultipartUploadsCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
} from "@aws-sdk/client-s3";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { collectGarbage } from "../../src/gc/gc.js";
import { CountingStore } from "../../src/store/counting.js";
import { S3Store } from "../../src/store/s3.js";
import type { ObjectStore } from "../../src/store/types.js";
import { rgwHarness } from "../store/harness/rgw.js";
import type { StoreFixture } from "../store/harness/index.js";

const DAY = 86_400_000;

describe("gc of S3 leftovers (s3)", () => {
  let fx: StoreFixture;
  let store: ObjectStore;
  beforeAll(async () => {
    fx = await rgwHarness.open();
    store = fx.store;
  });
  afterAll(async () => fx.dispose());

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
    const left = await client.send(new ListMultipartUploadsCommand({ Bucket: s3.bucket, Prefix: `${store.prefix}/` }));
    expect(left.Uploads ?? []).toEqual([]);
    client.destroy();
  });
});
