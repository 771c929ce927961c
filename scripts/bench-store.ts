/**
 * npm run bench:store [-- --ops N] — store throughput and latency on the filesystem, on Ceph RGW and on Azurite,
 * each side by side with a hand-written reference in the same run (durable raw fs writes / raw SDK calls), as
 * ratios. Starts RGW with scripts/s3-server.sh unless S3_ENDPOINT is set, and Azurite with scripts/azurite.sh
 * unless AZURITE_ENDPOINT is set; GEOREFRESH_SKIP_S3=1 / GEOREFRESH_SKIP_AZURE=1 leave either out.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { open, rename, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { CreateBucketCommand, HeadObjectCommand, PutObjectCommand, S3Client } from "@aws-sdk/client-s3";
import { BlobServiceClient, StorageSharedKeyCredential } from "@azure/storage-blob";
import type { ContainerClient } from "@azure/storage-blob";
import { AzureStore } from "../src/store/azure.js";
import { FsStore } from "../src/store/fs.js";
import { S3Store } from "../src/store/s3.js";
import type { ObjectStore } from "../src/store/types.js";

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= "true";
const opsArg = process.argv.indexOf("--ops");
const OPS = opsArg > 0 ? Number(process.argv[opsArg + 1]) : 1000;
const body = new Uint8Array(1024).fill(42);

async function rate(ops: number, concurrency: number, op: (i: number) => Promise<unknown>): Promise<number> {
  let next = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < ops) await op(next++);
    }),
  );
  return ops / ((performance.now() - t0) / 1000);
}

async function latency(ops: number, op: (i: number) => Promise<unknown>): Promise<{ p50: number; p95: number }> {
  const samples: number[] = [];
  for (let i = 0; i < ops; i++) {
    const t0 = performance.now();
    await op(i);
    samples.push(performance.now() - t0);
  }
  samples.sort((a, b) => a - b);
  return { p50: samples[Math.floor(ops * 0.5)] ?? 0, p95: samples[Math.floor(ops * 0.95)] ?? 0 };
}

interface Reference {
  put(key: string): Promise<unknown>;
  head(key: string): Promise<unknown>;
}

type Row = [string, string, string, string];

async function benchStore(name: string, store: ObjectStore, ref: Reference): Promise<Row[]> {
  const rows: Row[] = [];
  const fmt = (n: number) => n.toFixed(0);
  for (const conc of [1, 32]) {
    const ours = await rate(OPS, conc, (i) => store.put(`bench/put/${i % 100}`, body));
    const theirs = await rate(OPS, conc, (i) => ref.put(`bench/ref/${i % 100}`));
    rows.push([
      `${name} PUT 1 KiB, ${conc === 1 ? "sequential" : "32 concurrent"} (ops/s)`,
      fmt(ours),
      fmt(theirs),
      (ours / theirs).toFixed(2),
    ]);
  }
  for (const conc of [1, 32]) {
    const ours = await rate(OPS, conc, (i) => store.head(`bench/put/${i % 100}`));
    const theirs = await rate(OPS, conc, (i) => ref.head(`bench/ref/${i % 100}`));
    rows.push([
      `${name} HEAD, ${conc === 1 ? "sequential" : "32 concurrent"} (ops/s)`,
      fmt(ours),
      fmt(theirs),
      (ours / theirs).toFixed(2),
    ]);
  }
  const n = Math.min(OPS, 300);
  const run = Date.now().toString(36);
  const create = await latency(n, (i) => store.put(`bench/create/${run}/${i}`, body, { mode: "create" }));
  const refPut = await latency(n, (i) => ref.put(`bench/ref-create/${run}/${i}`));
  rows.push([
    `${name} create latency p50 / p95 (ms)`,
    `${create.p50.toFixed(2)} / ${create.p95.toFixed(2)}`,
    `${refPut.p50.toFixed(2)} / ${refPut.p95.toFixed(2)}`,
    (create.p50 / refPut.p50).toFixed(2),
  ]);
  await store.put("bench/cas", new TextEncoder().encode("0"));
  const cas = await latency(n, async (i) => {
    const { meta } = await store.get("bench/cas");
    await store.put("bench/cas", new TextEncoder().encode(String(i + 1)), { mode: { update: meta.version } });
  });
  const refRmw = await latency(n, async () => {
    await ref.head("bench/ref/0");
    await ref.put("bench/ref/0");
  });
  rows.push([
    `${name} CAS round trip (get+update) p50 / p95 (ms)`,
    `${cas.p50.toFixed(2)} / ${cas.p95.toFixed(2)}`,
    `${refRmw.p50.toFixed(2)} / ${refRmw.p95.toFixed(2)}`,
    (cas.p50 / refRmw.p50).toFixed(2),
  ]);
  return rows;
}

function fsReference(root: string): Reference {
  let n = 0;
  return {
    async put(key) {
      const path = join(root, key.replaceAll("/", "_"));
      const tmp = `${path}.${n++}.tmp`;
      const fh = await open(tmp, "w");
      await fh.writeFile(body);
      await fh.sync();
      await fh.close();
      await rename(tmp, path);
      const dirHandle = await open(root, "r"); // durable like ours: the rename itself is fsynced
      await dirHandle.sync();
      await dirHandle.close();
    },
    head: (key) => stat(join(root, key.replaceAll("/", "_"))),
  };
}

function s3Reference(client: S3Client, bucket: string, prefix: string): Reference {
  return {
    put: (key) => client.send(new PutObjectCommand({ Bucket: bucket, Key: `${prefix}/${key}`, Body: body })),
    head: (key) => client.send(new HeadObjectCommand({ Bucket: bucket, Key: `${prefix}/${key}` })),
  };
}

function azureReference(blobs: ContainerClient, prefix: string): Reference {
  return {
    put: (key) => blobs.getBlockBlobClient(`${prefix}/${key}`).upload(body, body.byteLength),
    head: (key) => blobs.getBlockBlobClient(`${prefix}/${key}`).getProperties(),
  };
}

function serverEnv(script = "scripts/s3-server.sh", set = "S3_ENDPOINT"): void {
  if (process.env[set]) return;
  execFileSync("bash", [script, "start"], { stdio: "inherit" });
  for (const line of execFileSync("bash", [script, "env"], { encoding: "utf8" }).split("\n")) {
    const m = /^export (\w+)=(.*)$/.exec(line);
    if (m?.[1]) process.env[m[1]] = m[2] ?? "";
  }
}

const rows: Row[] = [];
const dir = mkdtempSync(join(tmpdir(), "georefresh-bench-"));
const refDir = mkdtempSync(join(tmpdir(), "georefresh-bench-ref-"));
try {
  rows.push(...(await benchStore("fs", new FsStore(dir), fsReference(refDir))));
  if (process.env.GEOREFRESH_SKIP_S3 !== "1") {
    serverEnv();
    const bucket = process.env.GEOREFRESH_TEST_S3_BUCKET ?? "georefresh-test";
    const endpoint = process.env.S3_ENDPOINT as string;
    const client = new S3Client({
      endpoint,
      region: "us-east-1",
      forcePathStyle: true,
      requestChecksumCalculation: "WHEN_REQUIRED",
    });
    await client.send(new CreateBucketCommand({ Bucket: bucket })).catch(() => undefined);
    const prefix = `bench/${Date.now().toString(36)}`;
    const store = new S3Store({
      bucket,
      prefix: `${prefix}/ours`,
      endpoint,
      region: "us-east-1",
      forcePathStyle: true,
    });
    rows.push(...(await benchStore("rgw", store, s3Reference(client, bucket, `${prefix}/ref`))));
    await store.close();
    client.destroy();
  }
  if (process.env.GEOREFRESH_SKIP_AZURE !== "1") {
    serverEnv("scripts/azurite.sh", "AZURITE_ENDPOINT");
    const container = process.env.GEOREFRESH_TEST_AZURE_CONTAINER ?? "georefresh-test";
    const credential = new StorageSharedKeyCredential(
      process.env.AZURE_STORAGE_ACCOUNT as string,
      process.env.AZURE_STORAGE_KEY as string,
    );
    // The reference is the SDK as its docs show it (its own retry policy left on).
    const blobs = new BlobServiceClient(process.env.AZURITE_ENDPOINT as string, credential).getContainerClient(
      container,
    );
    await blobs.createIfNotExists();
    const prefix = `bench/${Date.now().toString(36)}`;
    const store = new AzureStore({ container, prefix: `${prefix}/ours` });
    rows.push(...(await benchStore("azurite", store, azureReference(blobs, `${prefix}/ref`))));
    await store.close();
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
  rmSync(refDir, { recursive: true, force: true });
}

const widths = [0, 1, 2, 3].map((i) =>
  Math.max(...[["measure", "georefresh", "reference", "ratio"], ...rows].map((r) => r[i]?.length ?? 0)),
);
const line = (r: string[]) =>
  r.map((c, i) => (i === 0 ? c.padEnd(widths[i] ?? 0) : c.padStart(widths[i] ?? 0))).join("  ");
console.log(
  `store benchmark, ${OPS} ops per rate figure; reference = raw writeFile+fsync+rename+dir fsync (fs) / raw SDK calls (rgw, azurite)`,
);
console.log(line(["measure", "georefresh", "reference", "ratio"]));
for (const r of rows) console.log(line(r));
