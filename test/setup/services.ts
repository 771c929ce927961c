import { execFileSync } from "node:child_process";
import { CreateBucketCommand, S3Client } from "@aws-sdk/client-s3";
import { BlobServiceClient, StorageSharedKeyCredential } from "@azure/storage-blob";
import type { TestProject } from "vitest/node";
import { ensureBuilt } from "../helpers/built-cli.js";

/**
 * Makes the real S3 server (Ceph RGW) available to every test file: uses S3_ENDPOINT when set, else starts
 * RGW with scripts/s3-server.sh (which installs it when missing). The S3 suites never skip in CI; outside CI,
 * GEOREFRESH_SKIP_S3=1 is the one explicit way to run without a server, and it is announced loudly.
 */
export interface S3TestEnv {
  endpoint: string;
  bucket: string;
  accessKeyId: string;
  secretAccessKey: string;
  region: string;
}

export interface AzureTestEnv {
  endpoint: string;
  account: string;
  key: string;
  container: string;
}

declare module "vitest" {
  export interface ProvidedContext {
    s3: S3TestEnv | null;
    /** SLURM_CONF of the single-node test cluster (scripts/slurm.sh), or null when its suites are left out. */
    slurm: string | null;
    /** The test Azurite's blob service (scripts/azurite.sh), or null when its suites are left out. */
    azure: AzureTestEnv | null;
    /** The test PostgreSQL + PostGIS server's URL (scripts/postgres.sh), or null when its suites are left out. */
    postgres: string | null;
  }
}

/**
 * The single-node Slurm cluster of the array-job tests: SLURM_CONF when set, else started with scripts/slurm.sh
 * (which installs Debian's slurm-wlm and munge when missing). Like RGW, never skipped in CI; outside CI,
 * GEOREFRESH_SKIP_SLURM=1 leaves those suites out, loudly.
 */
function startSlurm(project: TestProject): void {
  if (process.env.GEOREFRESH_SKIP_SLURM === "1" && process.env.CI !== "true") {
    console.warn("\n*** GEOREFRESH_SKIP_SLURM=1: the Slurm array suites are NOT running. CI always runs them. ***\n");
    project.provide("slurm", null);
    return;
  }
  if (!process.env.SLURM_CONF) {
    try {
      startService("scripts/slurm.sh", {
        timeout: 600_000,
      });
    } catch (error) {
      throw new Error(
        `could not start the test Slurm cluster (scripts/slurm.sh start): ${(error as Error).message}. As root it installs slurm-wlm and munge from Debian; outside CI, GEOREFRESH_SKIP_SLURM=1 leaves the Slurm suites out.`,
      );
    }
    process.env.SLURM_CONF = execFileSync("bash", ["scripts/slurm.sh", "env"], { encoding: "utf8" })
      .replace(/^export SLURM_CONF=/, "")
      .trim();
  }
  project.provide("slurm", process.env.SLURM_CONF);
}

/**
 * PostgreSQL 15 with PostGIS for the database sink suites: GEOREFRESH_TEST_POSTGRES_URL when set, else started with
 * scripts/postgres.sh (which installs Debian's packages when missing). Never skipped in CI; outside CI,
 * GEOREFRESH_SKIP_POSTGIS=1 leaves those suites out, loudly.
 */
function startPostgres(project: TestProject): void {
  if (process.env.GEOREFRESH_SKIP_POSTGIS === "1" && process.env.CI !== "true") {
    console.warn("\n*** GEOREFRESH_SKIP_POSTGIS=1: the PostGIS suites are NOT running. CI always runs them. ***\n");
    project.provide("postgres", null);
    return;
  }
  if (!process.env.GEOREFRESH_TEST_POSTGRES_URL) {
    try {
      startService("scripts/postgres.sh", {
        timeout: 300_000,
      });
    } catch (error) {
      throw new Error(
        `could not start the test PostgreSQL (scripts/postgres.sh start): ${(error as Error).message}. As root it installs postgresql-15-postgis-3 from Debian; outside CI, GEOREFRESH_SKIP_POSTGIS=1 leaves the PostGIS suites out.`,
      );
    }
    Object.assign(process.env, serverEnv("scripts/postgres.sh"));
  }
  project.provide("postgres", process.env.GEOREFRESH_TEST_POSTGRES_URL as string);
}

/**
 * Azurite's blob service for the az:// suites: AZURITE_ENDPOINT when set, else started with scripts/azurite.sh
 * (from node_modules). Never skipped in CI; outside CI, GEOREFRESH_SKIP_AZURE=1 leaves those suites out, loudly.
 */
async function startAzurite(project: TestProject): Promise<void> {
  if (process.env.GEOREFRESH_SKIP_AZURE === "1" && process.env.CI !== "true") {
    console.warn(
      "\n*** GEOREFRESH_SKIP_AZURE=1: the Azure (Azurite) suites are NOT running. CI always runs them. ***\n",
    );
    project.provide("azure", null);
    return;
  }
  if (!process.env.AZURITE_ENDPOINT) {
    try {
      startService("scripts/azurite.sh", {
        timeout: 120_000,
      });
    } catch (error) {
      throw new Error(
        `could not start the test Azurite (scripts/azurite.sh start): ${(error as Error).message}. It runs from node_modules (npm ci); outside CI, GEOREFRESH_SKIP_AZURE=1 leaves the Azure suites out.`,
      );
    }
    Object.assign(process.env, serverEnv("scripts/azurite.sh"));
  }
  const env: AzureTestEnv = {
    endpoint: process.env.AZURITE_ENDPOINT as string,
    account: process.env.AZURE_STORAGE_ACCOUNT ?? "",
    key: process.env.AZURE_STORAGE_KEY ?? "",
    container: process.env.GEOREFRESH_TEST_AZURE_CONTAINER ?? "georefresh-test",
  };
  const service = new BlobServiceClient(env.endpoint, new StorageSharedKeyCredential(env.account, env.key));
  try {
    await service.getContainerClient(env.container).createIfNotExists();
  } catch (error) {
    throw new Error(`test Azurite at ${env.endpoint} is not usable: ${(error as Error).message}`);
  }
  project.provide("azure", env);
}

/** The services this run started itself, stopped when it ends unless GEOREFRESH_KEEP_SERVICES=1. */
const started: string[] = [];

/** Starts a service with its script unless it already answers (then it is someone else's, and left running). */
function startService(script: string, options: { timeout: number }): void {
  try {
    execFileSync("bash", [script, "status"], { stdio: "ignore", timeout: 30_000 });
    return;
  } catch {
    // not answering: start it below
  }
  execFileSync("bash", [script, "start"], { stdio: ["ignore", "inherit", "inherit"], ...options });
  started.push(script);
}

/** Leaves the machine as the run found it: what it started, it stops (their data dirs stay, as `stop` leaves them). */
function stopStarted(): void {
  if (started.length === 0) return;
  if (process.env.GEOREFRESH_KEEP_SERVICES === "1") {
    console.warn(
      `test services left running (GEOREFRESH_KEEP_SERVICES=1): ${started.join(", ")}; each stops with "<script> stop"`,
    );
    return;
  }
  for (const script of started.reverse()) execFileSync("bash", [script, "stop"], { stdio: "ignore", timeout: 120_000 });
  console.warn(`test services stopped: ${started.join(", ")} (GEOREFRESH_KEEP_SERVICES=1 keeps them for the next run)`);
}

function serverEnv(script = "scripts/s3-server.sh"): Record<string, string> {
  const out = execFileSync("bash", [script, "env"], { encoding: "utf8" });
  const env: Record<string, string> = {};
  for (const line of out.split("\n")) {
    const m = /^export (\w+)=(.*)$/.exec(line);
    if (m?.[1] && m[2] !== undefined) env[m[1]] = m[2];
  }
  return env;
}

export default async function setup(project: TestProject): Promise<() => void> {
  await startAll(project);
  return stopStarted;
}

async function startAll(project: TestProject): Promise<void> {
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= "true";
  execFileSync("bash", ["scripts/test-deps.sh"], { stdio: ["ignore", "inherit", "inherit"], timeout: 600_000 });
  ensureBuilt(); // the kill trials start the compiled CLI
  startSlurm(project);
  startPostgres(project);
  await startAzurite(project);
  if (process.env.GEOREFRESH_SKIP_S3 === "1" && process.env.CI !== "true") {
    console.warn("\n*** GEOREFRESH_SKIP_S3=1: the S3 (Ceph RGW) suites are NOT running. CI always runs them. ***\n");
    project.provide("s3", null);
    return;
  }
  if (!process.env.S3_ENDPOINT) {
    try {
      startService("scripts/s3-server.sh", {
        timeout: 600_000,
      });
    } catch (error) {
      throw new Error(
        `could not start the test S3 server (scripts/s3-server.sh start): ${(error as Error).message}. ` +
          "Start it yourself (as root it installs Ceph RGW from Debian), point S3_ENDPOINT at one, or outside CI set GEOREFRESH_SKIP_S3=1.",
      );
    }
    Object.assign(process.env, serverEnv());
  }
  // Our RGW takes multipart parts down to 64 KiB (scripts/s3-server.sh), so tiny memory caps upload in parts.
  const ours = serverEnv();
  if (process.env.S3_ENDPOINT === ours.S3_ENDPOINT)
    process.env.GEOREFRESH_S3_MIN_PART_BYTES ??= ours.GEOREFRESH_S3_MIN_PART_BYTES;
  const env: S3TestEnv = {
    endpoint: process.env.S3_ENDPOINT as string,
    bucket: process.env.GEOREFRESH_TEST_S3_BUCKET ?? "georefresh-test",
    accessKeyId: process.env.AWS_ACCESS_KEY_ID ?? "",
    secretAccessKey: process.env.AWS_SECRET_ACCESS_KEY ?? "",
    region: process.env.AWS_REGION ?? "us-east-1",
  };
  const client = new S3Client({
    endpoint: env.endpoint,
    region: env.region,
    forcePathStyle: true,
    credentials: { accessKeyId: env.accessKeyId, secretAccessKey: env.secretAccessKey },
  });
  try {
    await client.send(new CreateBucketCommand({ Bucket: env.bucket }));
  } catch (error) {
    const name = (error as Error).name;
    if (name !== "BucketAlreadyOwnedByYou" && name !== "BucketAlreadyExists") {
      throw new Error(`test S3 server at ${env.endpoint} is not usable: ${name}: ${(error as Error).message}`);
    }
  } finally {
    client.destroy();
  }
  project.provide("s3", env);
}
