/**
 * npm run bench:sources — a source feed → a validated GeoParquet artifact, georefresh beside GeoPandas in the same
 * run: 1M points and 200k polygons in EPSG:26913, each as FlatGeobuf, GeoPackage and a zipped Shapefile (written
 * by Debian's ogr2ogr). georefresh: `georefresh backfill` of a config-only source dataset (read, reproject to
 * OGC:CRS84, validate every geometry, write, publish, promote) on a fresh directory store. GeoPandas 1.2 (pyogrio,
 * GDAL 3.12 inside): `read_file` → `to_crs("OGC:CRS84")` → `is_valid.all()` → `to_parquet`. Each is its own
 * process; wall time and peak RSS (getrusage of the child). Targets: ≤ 1.0× GeoPandas's time and peak RSS.
 * GeoPandas is installed offline into `.bench/venv` from the machine's local wheel index on first use.
 * `--points 200000 --polygons 50000` for a quick look; `--key` makes it a keyed feed (`"key": ["parcel_id"]`, a
 * text key), which also builds the first version's changelog. `--next` (with `--key`) adds the next logical date:
 * the same feed with 1 % of its rows changed (0.5 % moved 10 m, 0.5 % with a new value), backfilled alone in a
 * new process, so the change set reads and digests the previous date's artifact from the store as a lone `run`
 * does; GeoPandas runs its script on the changed file.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync, createWriteStream } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

const arg = (name: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : undefined;
};
const POINTS = Number(arg("points") ?? 1_000_000);
const POLYGONS = Number(arg("polygons") ?? 200_000);
const NEXT = process.argv.includes("--next");
const KEYED = NEXT || process.argv.includes("--key");
const ROOT = resolve(".");
const CLI = join(ROOT, "dist", "cli", "main.js");
const VENV = join(ROOT, ".bench", "venv");

function venvPython(): string {
  const python = join(VENV, "bin", "python");
  if (existsSync(python)) {
    const ok = spawnSync(python, ["-c", "import geopandas, pyogrio, pyarrow"]);
    if (ok.status === 0) return python;
  }
  mkdirSync(join(ROOT, ".bench"), { recursive: true });
  execFileSync("python3", ["-m", "venv", VENV], { stdio: "inherit" });
  const index = execFileSync("pip", ["config", "get", "global.extra-index-url"])
    .toString()
    .trim()
    .split(/\s+/)[0] as string;
  execFileSync(join(VENV, "bin", "pip"), ["install", "-q", "--index-url", index, "geopandas", "pyarrow", "pyogrio"], {
    stdio: "inherit",
  });
  return python;
}

/**
 * A CSV of n features in EPSG:26913 (around Weld County): points, or 80 m squares, with three attributes. `changed`:
 * the next date's feed, 1 % of rows changed (every 200th moved 10 m east, every 200th from the 100th a new value).
 */
async function writeCsv(path: string, n: number, kind: "point" | "polygon", changed = false): Promise<void> {
  const out = createWriteStream(path);
  const zones = ["R1", "R2", "C1", "AG", "MU"];
  const write = (s: string) =>
    out.write(s) ? Promise.resolve() : new Promise<void>((r) => out.once("drain", () => r()));
  await write("WKT,parcel_id,zoning,value\n");
  let chunk = "";
  for (let i = 0; i < n; i++) {
    const x = 480000 + (i % 1000) * 100 + (changed && i % 200 === 0 ? 10 : 0);
    const y = 4400000 + Math.floor(i / 1000) * 100;
    const wkt =
      kind === "point"
        ? `POINT (${x} ${y})`
        : `POLYGON ((${x} ${y},${x + 80} ${y},${x + 80} ${y + 80},${x} ${y + 80},${x} ${y}))`;
    const value = (i % 977) * 1000.5 + (changed && i % 200 === 100 ? 1 : 0);
    chunk += `"${wkt}",P-${String(i).padStart(8, "0")},${zones[i % 5]},${value}\n`;
    if (chunk.length > 1 << 20) {
      await write(chunk);
      chunk = "";
    }
  }
  await write(chunk);
  await new Promise<void>((r) => out.end(() => r()));
}

/** The feed in each format, from the CSV, by ogr2ogr. */
function writeFeeds(dir: string, name: string, csv: string, kind: "point" | "polygon"): Record<string, string> {
  const nlt = kind === "point" ? "POINT" : "POLYGON";
  const common = [
    "-a_srs",
    "EPSG:26913",
    "-oo",
    "GEOM_POSSIBLE_NAMES=WKT",
    "-oo",
    "KEEP_GEOM_COLUMNS=NO",
    "-nlt",
    nlt,
    "-nln",
    name,
  ];
  const fgb = join(dir, `${name}.fgb`);
  const gpkg = join(dir, `${name}.gpkg`);
  const shpDir = join(dir, `${name}-shp`);
  mkdirSync(shpDir);
  execFileSync("ogr2ogr", ["-f", "FlatGeobuf", fgb, csv, ...common]);
  execFileSync("ogr2ogr", ["-f", "GPKG", gpkg, csv, ...common]);
  execFileSync("ogr2ogr", [
    "-f",
    "ESRI Shapefile",
    "-lco",
    "ENCODING=UTF-8",
    join(shpDir, `${name}.shp`),
    csv,
    ...common,
  ]);
  const zip = join(dir, `${name}.zip`);
  execFileSync("zip", [
    "-q",
    "-j",
    zip,
    ...["shp", "shx", "dbf", "prj", "cpg"].map((e) => join(shpDir, `${name}.${e}`)),
  ]);
  return { FlatGeobuf: fgb, GeoPackage: gpkg, "zipped Shapefile": zip };
}

interface Measured {
  seconds: number;
  rssMiB: number;
  ok: boolean;
  output: string;
}

/** Runs a command as a child of a small Python wrapper that reports its wall time and the child's peak RSS. */
function measure(command: string[], cwd: string, env: Record<string, string> = {}): Measured {
  const wrapper = `import json, resource, subprocess, sys, time
t = time.perf_counter()
r = subprocess.run(sys.argv[1:], capture_output=True, text=True)
print(json.dumps({"seconds": time.perf_counter() - t, "kib": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, "code": r.returncode, "out": (r.stdout + r.stderr)[-2000:]}))`;
  const out = execFileSync("python3", ["-c", wrapper, ...command], {
    cwd,
    maxBuffer: 1 << 24,
    env: { ...process.env, ...env },
  }).toString();
  const r = JSON.parse(out) as { seconds: number; kib: number; code: number; out: string };
  return { seconds: r.seconds, rssMiB: r.kib / 1024, ok: r.code === 0, output: r.out };
}

const GEOPANDAS = `import json, sys, time, geopandas as gpd
src, out = sys.argv[1], sys.argv[2]
t = [time.perf_counter()]
df = gpd.read_file(src, engine="pyogrio"); t.append(time.perf_counter())
df = df.to_crs("OGC:CRS84"); t.append(time.perf_counter())
assert df.is_valid.all(); t.append(time.perf_counter())
df.to_parquet(out); t.append(time.perf_counter())
names = ["read_file", "to_crs", "is_valid", "to_parquet"]
print("STAGES " + json.dumps({n: t[i + 1] - t[i] for i, n in enumerate(names)}))`;

/** The stage lines a run appended (GEOREFRESH_STAGE_TIMES), summed by stage, in the order first seen. */
function stagesOf(file: string): string {
  if (!existsSync(file)) return "(none recorded)";
  const sums = new Map<string, number>();
  for (const line of readFileSync(file, "utf8").split("\n").filter(Boolean)) {
    const { stage, ms } = JSON.parse(line) as { stage: string; ms: number };
    sums.set(stage, (sums.get(stage) ?? 0) + ms);
  }
  return [...sums].map(([k, ms]) => `${k} ${(ms / 1000).toFixed(2)} s`).join(" · ");
}

function peerStagesOf(output: string): string {
  const line = output.split("\n").find((l) => l.startsWith("STAGES "));
  if (!line) return "(none recorded)";
  const stages = JSON.parse(line.slice(7)) as Record<string, number>;
  return Object.entries(stages)
    .map(([k, s]) => `${k} ${s.toFixed(2)} s`)
    .join(" · ");
}

async function main(): Promise<void> {
  if (!existsSync(CLI)) execFileSync("npm", ["run", "build"], { stdio: "inherit" });
  const python = venvPython();
  const dir = mkdtempSync(join(tmpdir(), "georefresh-bench-sources-"));
  try {
    writeFileSync(join(dir, "gpd.py"), GEOPANDAS);
    const rows: string[] = [];
    const DATES = NEXT ? ["2026-01-01", "2026-02-01"] : ["2026-01-01"];
    for (const [name, n, kind] of [
      ["points", POINTS, "point"],
      ["polygons", POLYGONS, "polygon"],
    ] as const) {
      // One folder per logical date, each holding the feed in every format; the url names it by {date}.
      const feedsByDate = DATES.map((date, d) => {
        const at = join(dir, date);
        mkdirSync(at, { recursive: true });
        const csv = join(at, `${name}.csv`);
        return writeCsv(csv, n, kind, d > 0).then(() => writeFeeds(at, name, csv, kind));
      });
      const feeds = await Promise.all(feedsByDate);
      for (const [format, first] of Object.entries(feeds[0] as Record<string, string>)) {
        const tag = `${name}-${format.replace(/\W/g, "")}`;
        const store = join(dir, `store-${tag}`);
        const config = join(dir, `config-${tag}.json`);
        const url = NEXT ? first.replace("2026-01-01", "{date}") : first;
        writeFileSync(
          config,
          JSON.stringify({
            store,
            datasets: {
              [name]: {
                source: { url, ...(KEYED ? { key: ["parcel_id"] } : {}) },
                regions: ["weld"],
                cadence: "monthly",
              },
            },
          }),
        );
        DATES.forEach((date, d) => {
          const path = (feeds[d] as Record<string, string>)[format] as string;
          const stageFile = join(dir, `stages-${tag}-${date}.jsonl`);
          const to = `${date.slice(0, 8)}28`;
          const ours = measure(
            ["node", CLI, "backfill", "--config", config, "--dataset", name, "--from", date, "--to", to],
            dir,
            { GEOREFRESH_STAGE_TIMES: stageFile },
          );
          if (!ours.ok || !/1 promoted/.test(ours.output))
            throw new Error(`georefresh failed on ${format} ${date}: ${ours.output}`);
          const theirs = measure([python, join(dir, "gpd.py"), path, join(dir, `${tag}-gpd.parquet`)], dir);
          if (!theirs.ok) throw new Error(`GeoPandas failed on ${format}: ${theirs.output}`);
          const what = `${n.toLocaleString("en")} ${KEYED ? "keyed " : ""}${name}${d > 0 ? ", next date" : ""}`;
          rows.push(
            `${what.padEnd(34)} ${format.padEnd(17)} georefresh ${ours.seconds.toFixed(2).padStart(6)} s ${ours.rssMiB.toFixed(0).padStart(5)} MiB   GeoPandas ${theirs.seconds.toFixed(2).padStart(6)} s ${theirs.rssMiB.toFixed(0).padStart(5)} MiB   time ${(ours.seconds / theirs.seconds).toFixed(2)}×  RSS ${(ours.rssMiB / theirs.rssMiB).toFixed(2)}× (targets ≤ 1.0×)`,
          );
          console.log(rows.at(-1));
          console.log(`    stages: georefresh ${stagesOf(stageFile)}`);
          console.log(`            GeoPandas  ${peerStagesOf(theirs.output)}`);
        });
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
