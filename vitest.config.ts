import { defineConfig } from "vitest/config";

// Outside CI, GEOREFRESH_SKIP_S3=1 leaves out the files that need the S3 server (announced by the setup).
const skipS3 = process.env.GEOREFRESH_SKIP_S3 === "1" && process.env.CI !== "true";
// GEOREFRESH_SKIP_AZURE=1 likewise leaves out the Azurite suites (*.azure.test.ts).
const skipAzure = process.env.GEOREFRESH_SKIP_AZURE === "1" && process.env.CI !== "true";
// GEOREFRESH_SKIP_SLURM=1 likewise leaves out the Slurm array suites (*.slurm.test.ts).
const skipSlurm = process.env.GEOREFRESH_SKIP_SLURM === "1" && process.env.CI !== "true";
// GEOREFRESH_SKIP_POSTGIS=1 likewise leaves out the PostgreSQL + PostGIS suites (*.postgis.test.ts).
const skipPostgis = process.env.GEOREFRESH_SKIP_POSTGIS === "1" && process.env.CI !== "true";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    exclude: [
      "**/node_modules/**",
      ...(skipS3 ? ["test/**/*.s3.test.ts", "test/**/*.slurm.test.ts"] : []),
      ...(skipSlurm ? ["test/**/*.slurm.test.ts"] : []),
      ...(skipAzure ? ["test/**/*.azure.test.ts"] : []),
      ...(skipPostgis ? ["test/**/*.postgis.test.ts"] : []),
    ],
    globalSetup: ["test/setup/services.ts"],
    reporters: ["default", "./test/setup/summary-reporter.ts"],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // Store suites spawn their own worker processes; two forks keep both cores busy without starving them.
    pool: "forks",
    maxWorkers: 2,
  },
});
