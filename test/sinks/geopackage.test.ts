/**
 * The GeoPackage sink, judged by GDAL (Debian's gdal-bin and python3-gdal, installed by scripts/test-deps.sh):
 * validate_gpkg.py passes, ogrinfo reads the count, the SRS and a bbox query through the R-tree; twice is identical
 * row by row; a change rewrites exactly the changed rows (the conformance suite, conformance.ts, holds the rest).
 */
import { execFileSync, spawn } from "node:child_process";
import type { ChildProcess } from "node:child_process";
import type { Writable } from "node:stream";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { gpkgGeometry } from "../../src/sinks/geopackage/geometry.js";
import { sinkDataset } from "../../src/sinks/run-sink.js";
import type { FsStore } from "../../src/store/fs.js";
import { openDataset } from "../../src/views/reader.js";
import { runCli, spawnCli } from "../helpers/cli.js";
import { parcelsProject } from "../helpers/parcels-project.js";
import { dateTwo, parcels } from "../helpers/parcels-task.js";
import type { Parcel } from "../helpers/parcels-task.js";

const [D1, D2, D3] = ["2026-03-01", "2026-03-02", "2026-03-03"];
const VALIDATE = "/usr/lib/python3/dist-packages/osgeo_utils/samples/validate_gpkg.py";
const N = 400;

describe("sink to a GeoPackage", () => {
  let dir: string;
  let store: FsStore;
  let config: string;
  let promote: (region: string, date: string, rows: Parcel[]) => Promise<void>;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "georefresh-gpkg-"));
    const project = await parcelsProject(dir);
    ({ config, store, promote } = project);
    for (const region of ["weld", "larimer"]) await promote(region, D1, parcels(N));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const sink = async (file: string) =>
    sinkDataset({ view: await openDataset(store, "parcels").current(), key: ["parcel_id"], to: file });
  const rowsOf = (file: string) => {
    const db = new Database(file, { readonly: true });
    try {
      return db
        .prepare(`SELECT * FROM parcels ORDER BY region, parcel_id`)
        .all()
        .map((r) => ({ ...(r as object), geom: Buffer.from((r as { geom: Buffer }).geom).toString("hex") })) as Record<
        string,
        unknown
      >[];
    } finally {
      db.close();
    }
  };

  it("writes a GeoPackage GDAL validates and reads, with an R-tree a bbox query uses; twice is identical", async () => {
    const file = join(dir, "out.gpkg");
    const first = await sink(file);
    expect(first.rows).toEqual({ inserted: 2 * N, updated: 0, unchanged: 0, retired: 0, deleted: 0 });
    execFileSync("/usr/bin/python3", [VALIDATE, file]); // throws on any failed requirement
    const info = execFileSync("ogrinfo", ["-so", "-ro", file, "parcels"]).toString();
    expect(info).toContain(`Feature Count: ${2 * N}`);
    expect(info).toMatch(/ID\["EPSG",4326\]/);
    expect(info).toMatch(/Geometry Column = geom/);

    // A bbox query through the R-tree returns exactly the squares that touch it (each region holds the same grid).
    const box = { minx: -104.75, miny: 40.31, maxx: -104.7, maxy: 40.36 };
    const spat = execFileSync("ogrinfo", [
      "-ro",
      "-q",
      file,
      "parcels",
      "-spat",
      ...[box.minx, box.miny, box.maxx, box.maxy].map(String),
      "-fields=YES",
      "-geom=NO",
    ]).toString();
    const got = [...spat.matchAll(/parcel_id \(String\) = (\S+)/g)].map((m) => m[1]).sort();
    const want = parcels(N)
      .filter((p) => p.x <= box.maxx && p.x + 0.01 >= box.minx && p.y <= box.maxy && p.y + 0.01 >= box.miny)
      .flatMap((p) => [p.parcel_id, p.parcel_id])
      .sort();
    expect(want.length).toBeGreaterThan(0);
    expect(want.length).toBeLessThan(N / 4);
    expect(got).toEqual(want);

    const check = new Database(file, { readonly: true });
    expect(check.prepare(`SELECT rtreecheck('rtree_parcels_geom') AS r`).get()).toEqual({ r: "ok" });
    check.close();
    const a = rowsOf(file);
    const again = await sink(file);
    expect(again.partitions).toEqual({ applied: 0, unchanged: 2, gone: 0 });
    expect(rowsOf(file)).toEqual(a);

    // Weld's next date: 13 rows change (3 added, 2 retired, 8 updated), the others are not rewritten.
    await promote("weld", D2, dateTwo(parcels(N)));
    const second = await sink(file);
    // Unchanged: weld's rows not rewritten, and larimer's (its partition not even read).
    expect(second.rows).toEqual({ inserted: 3, updated: 8, unchanged: N - 10 + N, retired: 2, deleted: 0 });
    const b = rowsOf(file);
    const before = new Map(a.map((r) => [`${r.region}/${r.parcel_id}`, r]));
    const changed = b.filter((r) => JSON.stringify(before.get(`${r.region}/${r.parcel_id}`)) !== JSON.stringify(r));
    expect(changed).toHaveLength(13);
    expect(b.find((r) => r.region === "weld" && r.parcel_id === "P-0001")).toMatchObject({ retired_at: D2 });
    execFileSync("/usr/bin/python3", [VALIDATE, file]);

    // P-0001 comes back: un-retired; the R-tree still answers for the moved squares.
    await promote("weld", D3, [...dateTwo(parcels(N)), parcels(N)[1] as Parcel]);
    expect((await sink(file)).rows).toMatchObject({ inserted: 0, updated: 1, retired: 0 });
    const c = rowsOf(file);
    expect(c.find((r) => r.region === "weld" && r.parcel_id === "P-0001")).toMatchObject({
      retired_at: null,
      valid_from: D3,
    });
    const db = new Database(file, { readonly: true });
    const rtree = db.prepare(`SELECT count(*) AS n FROM rtree_parcels_geom`).get() as { n: number };
    // The packed tree the first load wrote, then kept by the triggers: SQLite's own integrity check agrees.
    expect(db.prepare(`SELECT rtreecheck('rtree_parcels_geom') AS r`).get()).toEqual({ r: "ok" });
    const contents = db
      .prepare(`SELECT last_change, min_x, max_y FROM gpkg_contents WHERE table_name = 'parcels'`)
      .get() as Record<string, unknown>;
    db.close();
    expect(rtree.n).toBe(c.length);
    expect(contents.last_change).toBe(`${D3}T00:00:00.000Z`); // the logical date, never the wall clock
  });

  it("a dry run makes no file; a file that is not a GeoPackage is refused and left as it was", async () => {
    const fresh = join(dir, "dry.gpkg");
    const dry = await runCli(["sink", "parcels", "--config", config, "--to", fresh, "--dry-run"]);
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toMatch(
      /^dry run: parcels → .*dry\.gpkg table parcels \(current\): would apply 2 partitions, 0 unchanged; nothing changed/,
    );
    expect(existsSync(fresh)).toBe(false);
    // A path in folders that do not exist yet (the help's `out/parcels.gpkg`): a dry run makes none of them; the
    // sink makes them and the file.
    const nested = join(dir, "out", "sub", "parcels.gpkg");
    expect((await runCli(["sink", "parcels", "--config", config, "--to", nested, "--dry-run"])).code).toBe(0);
    expect(existsSync(join(dir, "out"))).toBe(false);
    const made = await runCli(["sink", "parcels", "--config", config, "--to", nested]);
    expect(made.code, made.stderr).toBe(0);
    execFileSync("/usr/bin/python3", [VALIDATE, nested]);

    // Neither a database URL nor a .gpkg path; a store with nothing promoted: each says what to do.
    const csv = await runCli(["sink", "parcels", "--config", config, "--to", "out.csv"]);
    expect(csv.code).toBe(2); // a usage error: no sink goes there
    expect(csv.stderr).toMatch(
      /--to "out\.csv" is neither a PostgreSQL URL .* nor a GeoPackage path \(ending in \.gpkg\)/,
    );
    const empty = mkdtempSync(join(tmpdir(), "georefresh-empty-"));
    const none = await runCli(["sink", "parcels", "--config", config, "--store", empty, "--to", fresh]);
    rmSync(empty, { recursive: true, force: true });
    expect(none.code).toBe(1);
    expect(none.stderr).toBe(
      "georefresh: parcels has no promoted partition: run georefresh backfill --dataset parcels first\n",
    );
    expect(existsSync(fresh)).toBe(false);

    const notes = join(dir, "notes.gpkg");
    writeFileSync(notes, "my notes, not a GeoPackage\n");
    const other = join(dir, "other.gpkg");
    new Database(other).exec("CREATE TABLE t (a)");
    for (const [file, what] of [
      [notes, /is not a GeoPackage \(not even SQLite\): refusing to write into it; give a new path/],
      [other, /is not a GeoPackage \(an SQLite database with its own tables, such as "t"\)/],
    ] as const) {
      const before = readFileSync(file);
      const r = await runCli(["sink", "parcels", "--config", config, "--to", file]);
      expect(r.code).toBe(3);
      expect(r.stderr).toMatch(what);
      expect(readFileSync(file).equals(before)).toBe(true);
    }
  }, 60_000);

  it("records where a sink's time goes with GEOREFRESH_STAGE_TIMES: the load, the indexes, the whole transaction", async () => {
    const file = join(dir, "timed.gpkg");
    const times = join(dir, "sink-stages.jsonl");
    process.env.GEOREFRESH_STAGE_TIMES = times;
    try {
      await sink(file);
    } finally {
      delete process.env.GEOREFRESH_STAGE_TIMES;
    }
    const lines = readFileSync(times, "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { stage: string; ms: number; partition: string });
    // One load per partition (weld and larimer), then the indexes and the transaction once.
    const loads = lines.filter((l) => l.stage === "sink: read, digest, bulk load");
    expect(loads.map((l) => l.partition.split(" ")[1]).sort()).toEqual(["larimer", "weld"]);
    expect(lines.filter((l) => l.stage === "sink: indexes, finish")).toHaveLength(1);
    const whole = lines.find((l) => l.stage === "sink: whole transaction (commit included)");
    expect(whole?.partition).toBe("parcels * *");
    for (const l of lines) expect(l.ms).toBeGreaterThanOrEqual(0);
    expect(whole?.ms).toBeGreaterThanOrEqual(Math.max(...loads.map((l) => l.ms)));
  });

  it("a file another program holds open in a transaction: the sink says it waits, then applies; or gives up with 75, nothing changed", async () => {
    const file = join(dir, "held.gpkg");
    expect((await runCli(["sink", "parcels", "--config", config, "--to", file])).code).toBe(0);
    /** A reader in its own process (a sqlite3 shell, an editor) holding a read transaction open for `seconds`. */
    /** A reader in its own process (a sqlite3 shell, an editor) holding a read transaction open until told to end it. */
    const hold = async (): Promise<ChildProcess & { stdin: Writable }> => {
      const reader = spawn("/usr/bin/python3", [
        "-c",
        `import sqlite3, sys
c = sqlite3.connect(sys.argv[1], isolation_level=None)
c.execute("BEGIN")
c.execute("SELECT count(*) FROM parcels").fetchone()
print("held", flush=True)
sys.stdin.readline()
c.execute("COMMIT")`,
        file,
      ]);
      await new Promise<void>((ok, fail) => {
        reader.stdout.on("data", () => ok());
        reader.once("exit", (code) => fail(new Error(`the reader exited (${code}) before holding the file`)));
      });
      return reader;
    };
    const changed = parcels(N).map((p, i) => (i < 5 ? { ...p, zoning: "changed" } : p));
    await promote("weld", "2026-03-04", changed); // after every date the other tests promote
    const before = rowsOf(file);

    const stuck = await hold();
    const gaveUp = await runCli(["sink", "parcels", "--config", config, "--to", file], {
      GEOREFRESH_SINK_WAIT_SECONDS: "1",
    });
    stuck.kill();
    expect(gaveUp.code, gaveUp.stderr).toBe(75);
    expect(gaveUp.stderr).toMatch(
      /held\.gpkg is locked by another program .*; waiting up to 1 seconds for it to let go/,
    );
    expect(gaveUp.stderr).toMatch(
      /held\.gpkg is still locked by another program after 1 seconds .* nothing was changed/,
    );
    expect(rowsOf(file)).toEqual(before);

    // The reader lets go only once the sink says it waits: the sink then commits, whatever the machine's speed.
    const reader = await hold();
    const sink = spawnCli(["sink", "parcels", "--config", config, "--to", file]);
    let [stdout, stderr] = ["", ""];
    sink.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    sink.stderr.on("data", (d: Buffer) => {
      stderr += d.toString();
      if (/is locked by another program/.test(stderr)) reader.stdin.write("\n");
    });
    const code = await new Promise<number | null>((ok) => sink.once("close", ok));
    reader.kill();
    expect(code, stderr).toBe(0);
    expect(stderr.match(/is locked by another program/g)).toHaveLength(1);
    expect(stdout).toMatch(/: 1 partition applied, 1 unchanged; rows \d+ inserted, [1-9]\d* updated/);
    expect(rowsOf(file)).not.toEqual(before);
  }, 60_000);

  it("encodes an empty geometry exactly as GDAL does", () => {
    const csv = join(dir, "empty.csv");
    const gpkg = join(dir, "gdal-empty.gpkg");
    writeFileSync(csv, 'WKT,a\n"POLYGON EMPTY",1\n"POLYGON ((0 0,1 0,1 1,0 0))",2\n');
    execFileSync("ogr2ogr", [
      "-f",
      "GPKG",
      gpkg,
      csv,
      "-oo",
      "GEOM_POSSIBLE_NAMES=WKT",
      "-a_srs",
      "EPSG:4326",
      "-nln",
      "e",
    ]);
    const db = new Database(gpkg, { readonly: true });
    const blobs = db.prepare(`SELECT geom FROM e ORDER BY fid`).all() as { geom: Buffer }[];
    db.close();
    const wkbOf = (blob: Buffer) => blob.subarray(8 + (((blob[3] as number) >> 1) & 7 ? 32 : 0));
    for (const { geom } of blobs) expect(gpkgGeometry(wkbOf(geom), 4326).toString("hex")).toBe(geom.toString("hex"));
  });
});
