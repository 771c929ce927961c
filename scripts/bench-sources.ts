/**
 * npm run bench:sources — a source feed → a validated GeoParquet artifact, georefresh beside GeoPandas in the same
 * run: 1M points and 200k polygons in EPSG:26913, each as FlatGeobuf, GeoPackage and a zipped Shapefile (written
 * by Debian's ogr2ogr). georefresh: `georefresh backfill` of a config-only source dataset (read, reproject to
 * OGC:CRS84, validate every geometry, write, publish, promote) on a fresh directory store. GeoPandas 1.2 (pyogrio,
 * GDAL 3.12 inside): `read_file` → `to_crs("OGC:CRS84")` → `is_valid.all()` → `to_parquet`. Each is its own
 * process; wall time and peak RSS (getrusage of the child). Targets: ≤ 1.0× GeoPandas's time and peak RSS.
 * GeoPandas is installed offline into `.bench/venv` from the machine's local wheel index on first use.
 * `--points 200000 --polygons 50000` for a quick look; `--key` makes it a keyed feed (`"key": ["parcel_id"]`, a
 * text key), which also builds the first version's changelog.
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
const KEYED = process.argv.includes("--key");
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

/** A CSV of n features in EPSG:26913 (around Weld County): points, or 80 m squares, with three attributes. */
async function writeCsv(path: string, n: number, kind: "point" | "polygon"): Promise<void> {
  const out = createWriteStream(path);
  const zones = ["R1", "R2", "C1", "AG", "MU"];
  const write = (s: string) =>
    out.write(s) ? Promise.resolve() : new Promise<void>((r) => out.once("drain", () => r()));
  await write("WKT,parcel_id,zoning,value\n");
  let chunk = "";
  for (let i = 0; i < n; i++) {
    const x = 480000 + (i % 1000) * 100;
    const y = 4400000 + Math.floor(i / 1000) * 100;
    const wkt =
      kind === "point"
        ? `POINT (${x} ${y})`
        : `POLYGON ((${x} ${y},${x + 80} ${y},${x + 80} ${y + 80},${x} ${y + 80},${x} ${y}))`;
    chunk += `"${wkt}",P-${String(i).padStart(8, "0")},${zones[i % 5]},${(i % 977) * 1000.5}\n`;
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
    for (const [name, n, kind] of [
      ["points", POINTS, "point"],
      ["polygons", POLYGONS, "polygon"],
    ] as const) {
      const csv = join(dir, `${name}.csv`);
      await writeCsv(csv, n, kind);
      const feeds = writeFeeds(dir, name, csv, kind);
      for (const [format, path] of Object.entries(feeds)) {
        const store = join(dir, `store-${name}-${format.replace(/\W/g, "")}`);
        const config = join(dir, `config-${name}-${format.replace(/\W/g, "")}.json`);
        writeFileSync(
          config,
          JSON.stringify({
            store,
            datasets: {
              [name]: {
                source: { url: path, ...(KEYED ? { key: ["parcel_id"] } : {}) },
                regions: ["weld"],
                cadence: "monthly",
              },
            },
          }),
        );
        const stageFile = join(dir, `stages-${name}-${format.replace(/\W/g, "")}.jsonl`);
        const ours = measure(
          [
            "node",
            CLI,
            "backfill",
            "--config",
            config,
            "--dataset",
            name,
            "--from",
            "2026-01-01",
            "--to",
            "2026-01-31",
          ],
          dir,
          { GEOREFRESH_STAGE_TIMES: stageFile },
        );
        if (!ours.ok || !/1 promoted/.test(ours.output))
          throw new Error(`georefresh failed on ${format}: ${ours.output}`);
        const theirs = measure([python, join(dir, "gpd.py"), path, join(dir, `${name}-gpd.parquet`)], dir);
        if (!theirs.ok) throw new Error(`GeoPandas failed on ${format}: ${theirs.output}`);
        rows.push(
          `${`${n.toLocaleString("en")} ${KEYED ? "keyed " : ""}${name}`.padEnd(24)} ${format.padEnd(17)} georefresh ${ours.seconds.toFixed(2).padStart(6)} s ${ours.rssMiB.toFixed(0).padStart(5)} MiB   GeoPandas ${theirs.seconds.toFixed(2).padStart(6)} s ${theirs.rssMiB.toFixed(0).padStart(5)} MiB   time ${(ours.seconds / theirs.seconds).toFixed(2)}×  RSS ${(ours.rssMiB / theirs.rssMiB).toFixed(2)}× (targets ≤ 1.0×)`,
        );
        console.log(rows.at(-1));
        console.log(`    stages: georefresh ${stagesOf(stageFile)}`);
        console.log(`            GeoPandas  ${peerStagesOf(theirs.output)}`);
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
