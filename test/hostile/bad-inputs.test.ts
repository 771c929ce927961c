/**
 * The bad-input corpus (test/fixtures/bad, made by scripts/make-bad-fixtures.ts with DuckDB) through the real
 * CLI: each case gets a clear message and its documented exit code, and the store is left exactly as it was.
 */
import { cpSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import S3rver from "s3rver";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { backfill } from "../../src/orchestrate/backfill.js";
import { FsStore } from "../../src/store/fs.js";
import { runCliHere as runCli } from "../helpers/cli.js";
import { parquetTask } from "../helpers/parquet-task.js";
import { published, snapshot } from "../helpers/snapshot.js";

const FIXTURES = fileURLToPath(new URL("../fixtures/bad/", import.meta.url));
const HELPER = pathToFileURL(fileURLToPath(new URL("../helpers/parquet-task.ts", import.meta.url))).href;

describe("bad inputs", () => {
  let dir: string;
  let store: FsStore;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "georefresh-bad-"));
    cpSync(FIXTURES, join(dir, "in"), { recursive: true });
    store = new FsStore(join(dir, "store"));
    // History: three good days, so plausibility has something to compare with.
    const r = await backfill({
      store,
      dataset: "bad",
      task: parquetTask(join(dir, "in", "good.parquet")),
      versions: {},
      from: "2026-01-01",
      to: "2026-01-03",
      threads: 0,
    });
    expect(r.counts.promoted).toBe(3);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  /** A config whose dataset `bad` reads `input`; returns its path. */
  function config(input: string, extra: Record<string, unknown> = {}): string {
    // One module per input: the CLI runs in this process, whose module cache keeps a module by its path.
    const module = `task-${input.replace(/[^\w.-]/g, "_")}.mjs`;
    writeFileSync(
      join(dir, module),
      `import { parquetTask } from ${JSON.stringify(HELPER)};\nexport default parquetTask(${JSON.stringify(join(dir, "in", input))});\n`,
    );
    writeFileSync(
      join(dir, "config.json"),
      JSON.stringify({ store: store.root, datasets: { bad: { module: `./${module}` } }, ...extra }),
    );
    return join(dir, "config.json");
  }

  const cases: [string, number, RegExp][] = [
    ["no-crs.parquet", 5, /refusing to compute: .*no-crs.parquet has no CRS/],
    ["unknown-epsg.parquet", 5, /unknown CRS "EPSG:999999"/],
    ["invalid-geometry.parquet", 1, /validation failed .*row \d+: Self-intersection/],
    ["nan.parquet", 1, /validation failed .*non-finite coordinate/],
    ["infinity.parquet", 1, /validation failed .*non-finite coordinate \(Infinity 1\)/],
    ["out-of-range.parquet", 1, /validation failed .*outside lon\/lat \[-180,180\]×\[-90,90\]/],
    ["empty.parquet", 1, /0 rows, fewer than the minimum 1;.*nothing was published/],
    ["truncated-rows.parquet", 1, /5 rows vs a median of 20 over the last 3 versions/],
    [
      "truncated-footer.parquet",
      5,
      /truncated-footer.parquet is truncated: it does not end with the 'PAR1' footer magic/,
    ],
    ["wrong-magic.parquet", 5, /wrong-magic.parquet is not a Parquet file/],
  ];
  for (const [file, exit, message] of cases) {
    it(`${file}: exit ${exit}, a clear message, nothing published or deleted`, async () => {
      const before = await snapshot(store);
      const r = await runCli([
        "run",
        "--dataset",
        "bad",
        "--region",
        "r1",
        "--date",
        "2026-01-04",
        "--config",
        config(file),
      ]);
      expect(r.stderr).toMatch(message);
      expect(r.code).toBe(exit);
      const after = await snapshot(store);
      expect(published(after)).toEqual(published(before));
      // A refused run (exit 1) records why, for ls and show; nothing else is written.
      if (exit === 1) expect(Object.keys(after)).toContain("refusals/bad/region=r1/date=2026-01-04.json");
    }, 60_000);
  }

  it("a schema-invalid manifest: exit 5, named, left untouched", async () => {
    const key = "manifests/bad/region=r1/date=2026-01-05.json";
    await store.put(key, new TextEncoder().encode('{"format":"georefresh.manifest/1","dataset":"bad"}'));
    const before = await snapshot(store);
    const r = await runCli([
      "run",
      "--dataset",
      "bad",
      "--region",
      "r1",
      "--date",
      "2026-01-05",
      "--config",
      config("good.parquet"),
    ]);
    expect(r.code).toBe(5);
    expect(r.stderr).toMatch(/date=2026-01-05.json is not a valid manifest .*left untouched/);
    expect(await snapshot(store)).toEqual(before);
  }, 60_000);

  it("a manifest pointing at a missing artifact: exit 5, nothing changed", async () => {
    const manifest = JSON.parse(
      new TextDecoder().decode((await store.get("manifests/bad/region=r1/date=2026-01-02.json")).body),
    );
    await store.delete(manifest.current.artifact);
    const before = await snapshot(store);
    const r = await runCli([
      "run",
      "--dataset",
      "bad",
      "--region",
      "r1",
      "--date",
      "2026-01-02",
      "--config",
      config("good.parquet"),
    ]);
    expect(r.code).toBe(5);
    expect(r.stderr).toMatch(/which is missing; nothing was changed/);
    expect(await snapshot(store)).toEqual(before);
  }, 60_000);

  it("names with '..', '/' or control characters: exit 2 before anything is touched", async () => {
    const before = await snapshot(store);
    for (const region of ["../etc", "a/b", "x\u0007"]) {
      const r = await runCli([
        "run",
        "--dataset",
        "bad",
        "--region",
        region,
        "--date",
        "2026-01-04",
        "--config",
        config("good.parquet"),
      ]);
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/unknown region/);
    }
    writeFileSync(
      join(dir, "evil.json"),
      JSON.stringify({ store: store.root, datasets: { "../evil": { module: "./task.mjs" } } }),
    );
    const r = await runCli([
      "run",
      "--dataset",
      "../evil",
      "--region",
      "r1",
      "--date",
      "2026-01-04",
      "--config",
      join(dir, "evil.json"),
    ]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/dataset name "\.\.\/evil" is not allowed/);
    expect(await snapshot(store)).toEqual(before);
  }, 60_000);

  it("an unreachable store: exit 75 (run again later) with what to do", async () => {
    const r = await runCli(
      [
        "run",
        "--dataset",
        "bad",
        "--region",
        "r1",
        "--date",
        "2026-01-04",
        "--config",
        config("good.parquet"),
        "--store",
        "s3://georefresh-test/x",
      ],
      {
        AWS_ENDPOINT_URL_S3: "http://127.0.0.1:9",
        AWS_ACCESS_KEY_ID: "k",
        AWS_SECRET_ACCESS_KEY: "s",
      },
    );
    expect(r.code).toBe(75);
    expect(r.stderr).toMatch(/ECONNREFUSED; is the server running/);
  }, 60_000);

  it("a backfill against an unreachable store stops at the first store failure instead of retrying every partition", async () => {
    const started = Date.now();
    const r = await runCli(
      [
        "backfill",
        "--dataset",
        "bad",
        "--from",
        "2026-01-01",
        "--to",
        "2026-01-31",
        "--workers",
        "0",
        "--config",
        config("good.parquet"),
        "--store",
        "s3://georefresh-test/x",
      ],
      {
        AWS_ENDPOINT_URL_S3: "http://127.0.0.1:9",
        AWS_ACCESS_KEY_ID: "k",
        AWS_SECRET_ACCESS_KEY: "s",
      },
    );
    expect(r.code).toBe(75);
    expect(r.stderr).toMatch(/ECONNREFUSED; is the server running/);
    const m =
      /^bad: 31 partitions: 1 failed; stopped: the store is unreachable \(see above\), 30 not started \(run again later\)\n$/.exec(
        r.stdout,
      );
    expect(m, r.stdout).not.toBeNull();
    expect(Date.now() - started).toBeLessThan(45_000);
  }, 90_000);

  it("a store that ignores conditional writes: exit 3, and not one artifact written to it", async () => {
    const s3dir = mkdtempSync(join(tmpdir(), "georefresh-s3rver-"));
    const server = new S3rver({
      address: "127.0.0.1",
      port: 0,
      silent: true,
      directory: s3dir,
      configureBuckets: [{ name: "ignoring", configs: [] }],
    });
    const { port } = (await server.run()) as { port: number };
    try {
      const env = {
        AWS_ENDPOINT_URL_S3: `http://127.0.0.1:${port}`,
        AWS_ACCESS_KEY_ID: "S3RVER",
        AWS_SECRET_ACCESS_KEY: "S3RVER",
        AWS_REGION: "us-east-1",
      };
      const r = await runCli(
        [
          "run",
          "--dataset",
          "bad",
          "--region",
          "r1",
          "--date",
          "2026-01-04",
          "--config",
          config("good.parquet"),
          "--store",
          "s3://ignoring/ds",
        ],
        env,
      );
      expect(r.code).toBe(3);
      expect(r.stderr).toMatch(/refusing to promote on s3:\/\/ignoring\/ds: .*ignores conditional writes/);
      const ls = await runCli(
        ["ls", "bad", "--config", join(dir, "config.json"), "--store", "s3://ignoring/ds", "--json"],
        env,
      );
      expect(JSON.parse(ls.stdout)).toEqual([]);
    } finally {
      await server.close();
      rmSync(s3dir, { recursive: true, force: true });
    }
  }, 60_000);
});
