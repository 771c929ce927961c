import { randomUUID } from "node:crypto";
import { inject } from "vitest";
import { mapBounded } from "../../../src/bounded.js";
import { S3Store } from "../../../src/store/s3.js";
import type { StoreHarness } from "./harness.js";

/** The environment a child process needs to open s3:// URLs on the test RGW (scripts/s3-server.sh env). */
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

/** S3 on the test Ceph RGW: a fresh prefix of the test bucket per fixture, emptied on dispose. */
export const rgwHarness: StoreHarness = {
  name: "s3",
  capabilities: { crossProcess: true, predictsVersions: true, listing: "native", listedVersions: true, remote: true },
  // A multipart ETag is the MD5 of the parts' MD5s, suffixed with their count.
  uploads: {
    async partsOf(store, key) {
      const parts = /-(\d+)"?$/.exec((await store.head(key)).version);
      return parts ? Number(parts[1]) : 0;
    },
  },
  unavailable: () => (inject("s3") ? undefined : "GEOREFRESH_SKIP_S3=1 left the S3 server out"),
  async open() {
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
        await mapBounded(keys, 32, (k) => store.delete(k));
        await store.close();
      },
    };
  },
};
