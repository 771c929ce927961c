/**
 * The Dockerfile's image, put together as the engine would put it (no container engine runs here): its stages
 * are interpreted — WORKDIR, COPY from the build context and from the build stage, and the build's own RUN (the
 * real `npm run build` in the stage's folder, on the stage's copied sources) — into a folder per stage, and the
 * final one is run as its ENTRYPOINT and CMD say: `--help`, then a backfill of a feed in a state-plane CRS, which
 * needs the EPSG index (the image lacked crs-index/ until this test). `npm ci` is the checkout's node_modules
 * (linked), and `npm prune --omit=dev` is judged instead: every package the built CLI imports is a production
 * dependency. What only an engine does (layers, users, the base image's Node) is not run.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { builtinModules } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const dir = mkdtempSync(join(tmpdir(), "georefresh-image-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Stage {
  name: string;
  root: string;
  workdir: string;
  entrypoint?: string[];
  cmd?: string[];
  runs: string[];
}

/** The Dockerfile's instructions, continuation lines joined, comments dropped. */
function instructions(text: string): [string, string][] {
  const joined = text.replace(/\\\n\s*/g, " ");
  return joined
    .split("\n")
    .filter((l) => l.trim() && !l.trimStart().startsWith("#"))
    .map((l) => {
      const m = /^(\w+)\s+(.*)$/.exec(l.trim()) as RegExpExecArray;
      return [(m[1] as string).toUpperCase(), m[2] as string];
    });
}

/** Each stage's folder after its COPY and WORKDIR steps; the build's RUN steps are carried out by `build`. */
function assemble(build: (stage: Stage, run: string) => void): Stage[] {
  const stages: Stage[] = [];
  let stage: Stage | undefined;
  const inside = (s: Stage, path: string) => join(s.root, path.startsWith("/") ? path : join(s.workdir, path));
  for (const [op, arg] of instructions(readFileSync(join(ROOT, "Dockerfile"), "utf8"))) {
    if (op === "FROM") {
      const name = /\bAS\s+(\S+)/i.exec(arg)?.[1] ?? String(stages.length);
      stage = { name, root: join(dir, `stage-${name}`), workdir: "/", runs: [] };
      mkdirSync(stage.root, { recursive: true });
      stages.push(stage);
      continue;
    }
    const s = stage as Stage;
    if (op === "WORKDIR") {
      s.workdir = arg;
      mkdirSync(inside(s, "."), { recursive: true });
    } else if (op === "COPY") {
      const words = arg.split(/\s+/);
      const from = words.find((w) => w.startsWith("--from="))?.slice("--from=".length);
      const paths = words.filter((w) => !w.startsWith("--"));
      const dest = paths.pop() as string;
      const source = from ? stages.find((x) => x.name === from) : undefined;
      if (from) expect(source, `COPY --from=${from}: no such stage`).toBeDefined();
      for (const src of paths) {
        const at = source ? join(source.root, src) : join(ROOT, src);
        const to = dest.endsWith("/") ? join(inside(s, dest), src.split("/").pop() as string) : inside(s, dest);
        cpSync(at, to, { recursive: true, verbatimSymlinks: true });
      }
    } else if (op === "RUN") {
      s.runs.push(arg);
      build(s, arg);
    } else if (op === "ENTRYPOINT") s.entrypoint = JSON.parse(arg) as string[];
    else if (op === "CMD") s.cmd = JSON.parse(arg) as string[];
  }
  return stages;
}

let image: Stage;
let stages: Stage[];

beforeAll(() => {
  stages = assemble((stage, run) => {
    const cwd = join(stage.root, stage.workdir);
    for (const step of run.split("&&").map((x) => x.trim())) {
      if (step.startsWith("npm ci ")) symlinkSync(join(ROOT, "node_modules"), join(cwd, "node_modules"));
      else if (step === "npm run build") execFileSync("npm", ["run", "build"], { cwd, stdio: "pipe" });
      // prune, groupadd, useradd, mkdir, chown: the production-dependency check and the USER line below
    }
  });
  image = stages.at(-1) as Stage;
}, 180_000);

/** Runs the image's entrypoint with `args` (or its CMD), in its working directory, as the engine would. */
function runImage(args: string[] | undefined, cwd: string) {
  const [program, script, ...rest] = image.entrypoint as string[];
  expect(program).toBe("node");
  return spawnSync(process.execPath, [join(image.root, script as string), ...rest, ...(args ?? image.cmd ?? [])], {
    cwd,
    encoding: "utf8",
    env: { PATH: process.env.PATH, HOME: cwd },
  });
}

describe("the Dockerfile's image, assembled and run", () => {
  it("holds every file the npm package ships, and its ENTRYPOINT is the package's bin", () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as {
      files: string[];
      bin: Record<string, string>;
    };
    const app = join(image.root, "app");
    for (const f of [...pkg.files, "package.json", "node_modules"])
      expect(readdirSync(app), `the image's /app lacks ${f}`).toContain(f);
    expect(image.entrypoint?.[1]).toBe(`/app/${pkg.bin.georefresh}`);
    expect(stages.map((s) => s.runs.length)).toEqual([2, 1]); // the interpreter saw the build's and the user's RUNs
  });

  it("every package the built CLI imports is a production dependency (what npm prune --omit=dev keeps)", () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as {
      dependencies: Record<string, string>;
    };
    const imported = new Set<string>();
    const walk = (d: string) => {
      for (const e of readdirSync(d, { withFileTypes: true })) {
        const p = join(d, e.name);
        if (e.isDirectory()) walk(p);
        else if (e.name.endsWith(".js"))
          for (const m of readFileSync(p, "utf8").matchAll(/(?:from\s+|import\(\s*)"([^"./][^"]*)"/g)) {
            const spec = m[1] as string;
            if (spec.startsWith("node:") || builtinModules.includes(spec)) continue;
            imported.add(spec.startsWith("@") ? spec.split("/").slice(0, 2).join("/") : (spec.split("/")[0] as string));
          }
      }
    };
    walk(join(image.root, "app", "dist"));
    expect(imported.size).toBeGreaterThan(5);
    expect([...imported].filter((p) => !Object.hasOwn(pkg.dependencies, p))).toEqual([]);
  });

  it("runs: its CMD prints the help, and a backfill of a feed in EPSG:2232 (needs the EPSG index) promotes", () => {
    const config = join(image.root, "config");
    const help = runImage(undefined, config);
    expect(help.status, help.stderr).toBe(0);
    expect(help.stdout).toMatch(/Usage: georefresh/);
    // Colorado Central, US survey feet: a CRS only the EPSG index knows
    writeFileSync(
      join(config, "weld.geojson"),
      JSON.stringify({
        type: "FeatureCollection",
        crs: { type: "name", properties: { name: "urn:ogc:def:crs:EPSG::2232" } },
        features: [
          {
            type: "Feature",
            properties: { parcel_id: "a" },
            geometry: { type: "Point", coordinates: [3140000, 1700000] },
          },
        ],
      }),
    );
    writeFileSync(
      join(config, "georefresh.config.json"),
      JSON.stringify({
        store: "./data",
        datasets: { parcels: { source: { url: "./{region}.geojson", key: ["parcel_id"] }, regions: ["weld"] } },
      }),
    );
    const run = runImage(["backfill", "--dataset", "parcels", "--trailing", "1", "--to", "2026-11-30"], config);
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/parcels: 1 partition: 1 promoted/);
  });
});
