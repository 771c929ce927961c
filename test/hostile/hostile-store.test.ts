/**
 * A store that a careless or hostile user has changed by hand, through the real CLI: a symlinked manifest
 * directory, an unreadable manifest, a manifest edited to name another partition's artifact. Every command
 * answers the same way for the same damage, says where it is, carries on with the rest where it can, and gc
 * deletes nothing of a dataset it cannot fully read.
 */
import { cpSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { backfill } from "../../src/orchestrate/backfill.js";
import { FsStore } from "../../src/store/fs.js";
import { runCliHere as runCli } from "../helpers/cli.js";
import { pointsTask, VERSIONS, writePoints, writePointsConfig } from "../helpers/points-task.js";
import { startReceiver } from "../helpers/receiver.js";
import { snapshot } from "../helpers/snapshot.js";

const GC = ["gc", "--artifacts", "--apply", "--older-than", "0s", "--override-floor"];

describe("a store damaged by hand", () => {
  let dir: string;
  let store: FsStore;
  let config: string;
  let pristine: Record<string, string>;
  const m = (ds: string, region: string, date: string) =>
    join(dir, "store", "manifests", ds, `region=${region}`, `date=${date}.json`);
  const cli = (args: string[], env: Record<string, string> = {}) => runCli([...args, "--config", config], env);

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "georefresh-hostile-"));
    const input = join(dir, "points.json");
    writePoints(input, 24);
    config = writePointsConfig(dir, input, { pts: {}, other: {} });
    store = new FsStore(join(dir, "store"));
    for (const dataset of ["pts", "other"]) {
      const r = await backfill({
        store,
        dataset,
        task: pointsTask(input),
        versions: VERSIONS,
        from: "2026-01-01",
        to: "2026-01-02",
        threads: 0,
      });
      expect(r.counts.promoted).toBe(4);
    }
    pristine = await snapshot(store);
    cpSync(join(dir, "store"), join(dir, "pristine"), { recursive: true });
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  beforeEach(async () => {
    // Each case starts from the same store.
    rmSync(join(dir, "store"), { recursive: true, force: true });
    cpSync(join(dir, "pristine"), join(dir, "store"), { recursive: true });
    expect(await snapshot(store)).toEqual(pristine);
  });

  it("a symlinked manifests/<dataset>: every command refuses it alike; gc deletes none of its artifacts and carries on with the others", async () => {
    mkdirSync(join(dir, "elsewhere"), { recursive: true });
    renameSync(join(dir, "store", "manifests", "pts"), join(dir, "elsewhere", "pts"));
    symlinkSync(join(dir, "elsewhere", "pts"), join(dir, "store", "manifests", "pts"));
    const orphan = "artifacts/other/region=north/date=2026-01-01/ffffffffffffffff.parquet";
    await store.put(orphan, new Uint8Array([1, 2, 3]));
    try {
      for (const args of [
        ["ls", "pts"],
        ["urls", "pts"],
        ["read", "pts", "--region", "north", "--date", "2026-01-01"],
        ["show", "pts", "--region", "north", "--latest-date"],
        ["run", "--dataset", "pts", "--region", "north", "--date", "2026-01-01"],
        ["backfill", "--dataset", "pts", "--from", "2026-01-01", "--to", "2026-01-01", "--dry-run"],
      ]) {
        const r = await cli(args);
        expect(r.stderr + r.stdout, args.join(" ")).toMatch(
          /store\/manifests\/pts is a symlink: the filesystem store never follows links/,
        );
        expect(r.code, args.join(" ")).toBe(3);
      }
      const gc = await cli([...GC, "--json"]);
      expect(gc.code).toBe(1);
      expect(gc.stderr).toMatch(/gc skipped dataset pts \(nothing of it was deleted\): .*manifests\/pts is a symlink/);
      const report = JSON.parse(gc.stdout) as { artifacts: string[]; skipped: { dataset: string }[] };
      expect(report.skipped.map((s) => s.dataset)).toEqual(["pts"]);
      expect(report.artifacts).toEqual([orphan]); // the other dataset was still collected
      const after = await snapshot(store, "artifacts/pts/");
      expect(Object.keys(after)).toHaveLength(4);
    } finally {
      rmSync(join(dir, "store", "manifests", "pts"));
      renameSync(join(dir, "elsewhere", "pts"), join(dir, "store", "manifests", "pts"));
    }
  }, 120_000);

  it("an unreadable manifest: ls and urls list the rest and name it (exit 1); gc skips the dataset; deliver sends the rest", async () => {
    const bad = m("pts", "north", "2026-01-01");
    writeFileSync(bad, "{ not json");
    const receiver = await startReceiver("s");
    try {
      const ls = await cli(["ls", "pts"]);
      expect(ls.code).toBe(1);
      expect(ls.stdout.trim().split("\n")).toHaveLength(4); // the header and 3 partitions
      expect(ls.stderr).toMatch(/skipped manifests\/pts\/region=north\/date=2026-01-01.json: .* is not JSON/);
      const urls = await cli(["urls", "pts", "--json"]);
      expect(urls.code).toBe(1);
      expect(JSON.parse(urls.stdout)).toHaveLength(3);
      const gc = await cli(GC);
      expect(gc.code).toBe(1);
      expect(gc.stderr).toMatch(/gc skipped dataset pts/);
      const deliver = await cli(["deliver", "--webhook", receiver.url, "--json"]);
      expect(deliver.code).toBe(1);
      const report = JSON.parse(deliver.stdout) as { counts: Record<string, number> };
      expect(report.counts).toMatchObject({ sent: 7, failed: 1 });
      expect(receiver.applied.size).toBe(7);
      // Nothing of pts was deleted, and the damaged manifest itself was left as the user left it.
      expect(Object.keys(await snapshot(store, "artifacts/pts/"))).toHaveLength(4);
      expect(readFileSync(bad, "utf8")).toBe("{ not json");
    } finally {
      await receiver.close();
    }
  }, 120_000);

  it("a manifest edited to name another partition's artifact is refused by every reader, and gc deletes nothing of its dataset", async () => {
    const ri = m("pts", "north", "2026-01-01");
    const ct = JSON.parse(readFileSync(m("pts", "south", "2026-01-01"), "utf8")) as {
      current: { key: string; artifact: string; sha256: string };
    };
    const doc = JSON.parse(readFileSync(ri, "utf8")) as { current: { key: string; artifact: string; sha256: string } };
    const real = doc.current.artifact;
    doc.current = { ...doc.current, key: ct.current.key, artifact: ct.current.artifact, sha256: ct.current.sha256 };
    writeFileSync(ri, JSON.stringify(doc, null, 2));
    const tampered =
      /manifests\/pts\/region=north\/date=2026-01-01.json is a tampered or corrupt manifest: entry [0-9a-f]{16} points at artifacts\/pts\/region=south/;
    for (const [args, code] of [
      [["read", "pts", "--region", "north", "--date", "2026-01-01", "--format", "ndjson"], 1],
      [["show", "pts", "--region", "north", "--date", "2026-01-01"], 1],
      [["run", "--dataset", "pts", "--region", "north", "--date", "2026-01-01"], 5],
      [
        [
          "backfill",
          "--dataset",
          "pts",
          "--from",
          "2026-01-01",
          "--to",
          "2026-01-01",
          "--regions",
          "north",
          "--dry-run",
        ],
        5,
      ],
    ] as [string[], number][]) {
      const r = await cli(args);
      expect(r.stderr + r.stdout, args.join(" ")).toMatch(tampered);
      expect(r.stdout, args.join(" ")).not.toMatch(/"side":\s*"south"/); // no south county served as north
      expect(r.code, args.join(" ")).toBe(code);
    }
    const urls = await cli(["urls", "pts"]);
    expect(urls.code).toBe(1);
    expect(urls.stderr).toMatch(tampered);
    expect(urls.stdout.trim().split("\n")).toHaveLength(3);
    const gc = await cli(GC);
    expect(gc.code).toBe(1);
    expect(gc.stderr).toMatch(/gc skipped dataset pts/);
    expect(await store.exists(real.replace(/^.*?artifacts\//, "artifacts/"))).toBe(true);
    expect(Object.keys(await snapshot(store, "artifacts/pts/"))).toHaveLength(4);
  }, 120_000);
});
