import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    globalSetup: ["test/setup/s3-server.ts"],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // Store suites spawn their own worker processes; two forks keep both cores busy without starving them.
    pool: "forks",
    maxWorkers: 2,
  },
});
