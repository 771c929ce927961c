/**
 * Issue 22, items 6 and 10–15, through the real CLI: names that are Object.prototype members, misspelt datasets,
 * upstream cycles, missing pins, licenses and over-long names are configuration errors (exit 2, said when the
 * config loads); times are parsed strictly; a manifest whose promoted_at is no time is corrupt (exit 1).
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { backfill } from "../../src/orchestrate/backfill.js";
import { writeStac } from "../../src/stac/publish.js";
import { FsStore } from "../../src/store/fs.js";
import { runCliHere as runCli } from "../helpers/cli.js";
import { pointsTask, VERSIONS, writePoints, writePointsConfig } from "../helpers/points-task.js";
import { snapshot } from "../helpers/snapshot.js";

const HELPER = fileURLToPath(new URL("../helpers/points-task.ts", import.meta.url));

describe("hostile names, configs and times", () => {
  let dir: string;
  let config: string;
  let store: FsStore;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "georefresh-names-"));
    writePoints(join(dir, "points.json"), 20);
    config = writePointsConfig(dir, join(dir, "points.json"));
    store = new FsStore(join(dir, "store"));
    const r = await backfill({
      store,
      dataset: "pts",
      task: pointsTask(join(dir, "points.json")),
      versions: VERSIONS,
      from: "2026-01-01",
      to: "2026-01-02",
      threads: 0,
    });
    expect(r.counts.promoted).toBe(4);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  /** A config in its own folder: datasets of the points task, each with its extra fields and its own inputs. */
  function configWith(
    name: string,
    datasets: Record<string, { inputs?: Record<string, string>; pins?: string[]; extra?: object }>,
    versions: object = VERSIONS,
  ): string {
    const at = join(dir, name);
    mkdirSync(at, { recursive: true });
    writeFileSync(join(at, "versions.json"), JSON.stringify(versions));
    const named: Record<string, object> = {};
    for (const [ds, spec] of Object.entries(datasets)) {
      writeFileSync(
        join(at, `${ds}.mjs`),
        `import { pointsTask } from ${JSON.stringify(HELPER)};
const base = pointsTask(${JSON.stringify(join(dir, "points.json"))});
export default { ...base, ${spec.inputs ? `inputs: () => (${JSON.stringify(spec.inputs)}),` : ""} ${spec.pins ? `pins: ${JSON.stringify(spec.pins)},` : ""} };\n`,
      );
      named[ds] = { module: `./${ds}.mjs`, ...spec.extra };
    }
    writeFileSync(
      join(at, "config.json"),
      JSON.stringify({ store: join(dir, "store"), versions: "./versions.json", datasets: named }),
    );
    return join(at, "config.json");
  }

  /** One day's backfill of dataset `a` under `config`. */
  const backfillA = (config: string, ...extra: string[]) =>
    runCli(["backfill", "--dataset", "a", "--from", "2026-01-01", "--to", "2026-01-01", ...extra, "--config", config]);

  it("11, 12: Object.prototype names and misspelt datasets: exit 2 naming the name and the known datasets", async () => {
    const runs: [string[], RegExp][] = [
      [["backfill", "--dataset", "toString", "--from", "2026-01-01", "--to", "2026-01-01"], /no dataset "toString"/],
      [
        ["backfill", "--dataset", "constructor", "--from", "2026-01-01", "--to", "2026-01-01"],
        /no dataset "constructor"/,
      ],
      [["run", "--dataset", "__proto__", "--region", "north", "--date", "2026-01-01"], /no dataset "__proto__"/],
      [["ls", "valueOf"], /no dataset "valueOf"/],
      [["ls", "ptss"], /no dataset "ptss" in .*config\.json \(datasets: pts\)/],
      [["urls", "ptss"], /no dataset "ptss"/],
      [["show", "ptss", "--region", "north", "--latest-date"], /no dataset "ptss"/],
      [["read", "ptss", "--region", "north", "--latest-date"], /no dataset "ptss"/],
      [["stac", "hasOwnProperty"], /no dataset "hasOwnProperty"/],
    ];
    for (const [args, message] of runs) {
      const r = await runCli([...args, "--config", config]);
      expect(r.code, `${args.join(" ")}: ${r.stderr}`).toBe(2);
      expect(r.stderr).toMatch(message);
      expect(r.stderr).not.toMatch(/Cannot read properties/);
      expect(r.stdout).toBe("");
    }
    // A dataset the config names but the store does not hold yet: said on stderr, not an empty success.
    const other = configWith("empty-store", { fresh: {} });
    const ls = await runCli(["ls", "fresh", "--config", other]);
    expect([ls.code, ls.stdout]).toEqual([0, ""]);
    expect(ls.stderr).toMatch(/holds no partitions of fresh yet: run georefresh backfill --dataset fresh/);
  }, 120_000);

  it("10, 15: upstream cycles, unknown upstreams and missing pins are configuration errors (exit 2)", async () => {
    const before = await snapshot(store);
    const cases: [string, Parameters<typeof configWith>[1], RegExp][] = [
      ["self", { a: { inputs: { up: "dataset:a" } } }, /read each other's partitions in a cycle \(a → a\)/],
      ["ring", { a: { inputs: { up: "dataset:b" } }, b: { inputs: { up: "dataset:a" } } }, /in a cycle \(a → b → a\)/],
      [
        "nosuch",
        { a: { inputs: { up: "dataset:nosuch" } } },
        /dataset 'a' reads dataset:nosuch, which this config does not name/,
      ],
      [
        "pin",
        { a: { pins: ["square_size", "constructor"] } },
        /dataset 'a' \(task test-squares\) needs pin 'constructor', which the versions file .* does not have/,
      ],
    ];
    for (const [name, datasets, message] of cases) {
      const r = await backfillA(configWith(name, datasets));
      expect(r.code, `${name}: ${r.stderr}`).toBe(2);
      expect(r.stderr).toMatch(message);
    }
    // An earlier date of itself is no cycle.
    const ok = configWith("yesterday", {
      a: { inputs: { pts: "dataset:pts?region=north&date=2026-01-01", own: "dataset:a?date=2025-12-31" } },
    });
    const dry = await backfillA(ok, "--dry-run");
    expect(dry.stderr).not.toMatch(/cycle/);
    expect(await snapshot(store)).toEqual(before);
  }, 120_000);

  it("14: a license that is not SPDX, a name over the limit: exit 2 at config load; 100-character names make a STAC catalog", async () => {
    const license = await runCli([
      "ls",
      "a",
      "--config",
      configWith("license", { a: { extra: { catalog: { license: "CC BY 4.0" } } } }),
    ]);
    expect(license.code).toBe(2);
    expect(license.stderr).toMatch(
      /"catalog.license" "CC BY 4.0" is not an SPDX license id or expression .*"CC-BY-4.0"/,
    );
    // The sink's settings are checked as the config loads too.
    for (const [sink, message] of [
      [{ table: 3 }, /"sink.table" must be a non-empty string/],
      [{ history: "yes" }, /"sink.history" must be true or false/],
      [{ schema: "x" }, /"sink" has an unknown field "schema" \(table, history\)/],
    ] as const) {
      const bad = await runCli([
        "ls",
        "a",
        "--config",
        configWith(`sink-${Object.keys(sink)[0]}`, { a: { extra: { sink } } }),
      ]);
      expect(bad.code).toBe(2);
      expect(bad.stderr).toMatch(message);
    }
    for (const good of ["CC-BY-4.0", "MIT OR Apache-2.0", "other"]) {
      const r = await runCli([
        "ls",
        "a",
        "--config",
        configWith(`license-${good.length}`, { a: { extra: { catalog: { license: good } } } }),
      ]);
      expect(r.code, r.stderr).toBe(0);
    }
    const long = "d".repeat(101);
    const r = await runCli(["ls", long, "--config", configWith("long", { [long]: {} })]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/dataset name "d{101}" is not allowed: use 1–100 letters/);
    // At the limit, the longest derived key segment still fits a filesystem's 255 bytes.
    const name = "n".repeat(100);
    const region = "r".repeat(100);
    const longStore = new FsStore(join(dir, "long-store"));
    const made = await backfill({
      store: longStore,
      dataset: name,
      task: pointsTask(join(dir, "points.json"), { regions: [region] }),
      versions: VERSIONS,
      from: "2026-01-01",
      to: "2026-01-01",
      threads: 0,
    });
    expect(made.counts.promoted).toBe(1);
    const stac = await writeStac(longStore, name, { cadence: "daily" });
    expect(stac.items).toBe(1);
    expect(Object.keys(await snapshot(longStore, `stac/${name}/items/`))).toHaveLength(1);
  }, 120_000);

  it("13: times are parsed strictly; a bad one names its flag or variable (exit 2)", async () => {
    for (const asOf of [
      "2026-02-30T00:00:00Z",
      "0",
      "Tue, 24 Nov 2026 18:00:00 GMT",
      "2026-11-24T18:00:00",
      "2026-11-24T25:00:00Z",
    ]) {
      const r = await runCli(["urls", "pts", "--as-of", asOf, "--config", config]);
      expect(r.code, `${asOf}: ${r.stderr}`).toBe(2);
      expect(r.stderr).toMatch(/--as-of .*give an ISO 8601 instant with its offset/);
    }
    const good = await runCli(["urls", "pts", "--as-of", "2099-01-01T01:00:00+01:00", "--config", config]);
    expect(good.code, good.stderr).toBe(0);
    expect(good.stdout.trim().split("\n")).toHaveLength(4);
    const scheduled = [
      "backfill",
      "--dataset",
      "pts",
      "--to",
      "scheduled",
      "--trailing",
      "1",
      "--dry-run",
      "--config",
      config,
    ];
    const feb30 = await runCli(scheduled, { GEOREFRESH_SCHEDULED_TIME: "2026-02-30T02:00:00Z" });
    expect(feb30.code).toBe(2);
    expect(feb30.stderr).toMatch(/GEOREFRESH_SCHEDULED_TIME="2026-02-30T02:00:00Z" is not an ISO 8601 instant/);
    const huge = await runCli(scheduled, { GEOREFRESH_JOB_NAME: `nightly-${"9".repeat(400)}` });
    expect(huge.code).toBe(2);
    expect(huge.stderr).toMatch(
      /GEOREFRESH_JOB_NAME="nightly-9+"… \(408 characters\) does not end in a CronJob's scheduled minute/,
    );
    expect(huge.stderr).not.toMatch(/time-zone/);
  }, 120_000);

  it("6: a manifest whose promoted_at is no time is corrupt: ls and urls --as-of name it and exit 1", async () => {
    const key = "manifests/pts/region=south/date=2026-01-02.json";
    const path = store.locate(key);
    const original = readFileSync(path, "utf8");
    try {
      for (const bad of ["yesterday", "2026-02-30T00:00:00Z"]) {
        const doc = JSON.parse(original) as { current: { promoted_at: string } };
        doc.current.promoted_at = bad;
        writeFileSync(path, JSON.stringify(doc));
        const urls = await runCli(["urls", "pts", "--as-of", "2099-01-01T00:00:00Z", "--config", config]);
        expect(urls.code, urls.stderr).toBe(1);
        expect(urls.stderr).toContain(path);
        expect(urls.stderr).toMatch(/promoted_at/);
        const ls = await runCli(["ls", "pts", "--config", config]);
        expect(ls.code).toBe(1);
        expect(ls.stderr).toMatch(/promoted_at/);
      }
    } finally {
      writeFileSync(path, original);
    }
  }, 120_000);
});
