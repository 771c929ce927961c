/**
 * georefresh installs into an empty project from `npm pack`, with its CLI on that project's PATH, and the task
 * example in docs/tasks.md (extracted from the page, so the page cannot drift) imports `georefresh` there and runs:
 * a backfill, then a re-run that changes nothing.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const ROOT = resolve(".");
let dir: string;
let project: string;

/** The page's code blocks marked ```lang file=<name>, by file name. */
function examples(page: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const m of page.matchAll(/```\w+ file=([\w.-]+)\n([\s\S]*?)```/g)) out[m[1] as string] = m[2] as string;
  return out;
}

const run = (args: string[]) =>
  execFileSync(join(project, "node_modules", ".bin", "georefresh"), args, { cwd: project, encoding: "utf8" });

describe("npm pack → an empty project → a task of one's own, from docs/tasks.md", () => {
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "georefresh-pack-"));
    project = join(dir, "project");
    mkdirSync(project);
    if (!existsSync(join(ROOT, "dist", "index.js"))) execFileSync("npm", ["run", "build"], { cwd: ROOT });
    const packed = JSON.parse(
      execFileSync("npm", ["pack", "--ignore-scripts", "--json", "--pack-destination", dir], {
        cwd: ROOT,
        encoding: "utf8",
      }),
    ) as { filename: string }[];
    writeFileSync(join(project, "package.json"), JSON.stringify({ name: "county-feeds", private: true }));
    execFileSync(
      "npm",
      [
        "install",
        "--ignore-scripts",
        "--no-audit",
        "--no-fund",
        "--prefer-offline",
        join(dir, (packed[0] as { filename: string }).filename),
      ],
      { cwd: project, stdio: ["ignore", "ignore", "pipe"] },
    );
    for (const [name, text] of Object.entries(examples(readFileSync(join(ROOT, "docs", "tasks.md"), "utf8"))))
      writeFileSync(join(project, name), text);
    mkdirSync(join(project, "feeds"));
    for (const [region, x] of [
      ["weld", -104.8],
      ["larimer", -105.2],
    ] as const) {
      const features = [0, 1, 2, 3].map((k) => ({
        type: "Feature",
        geometry: {
          type: "Polygon",
          coordinates: [
            [
              [x + k * 0.01, 40.4],
              [x + k * 0.01 + 0.008, 40.4],
              [x + k * 0.01 + 0.008, 40.408],
              [x + k * 0.01, 40.4],
            ],
          ],
        },
        properties: {
          PARCEL_ID: `${region}-${k}`,
          ZONING: k % 2 ? "R1" : "AG",
          STATUS: k === 3 ? "retired" : "active",
        },
      }));
      writeFileSync(
        join(project, "feeds", `${region}.geojson`),
        JSON.stringify({ type: "FeatureCollection", features }),
      );
    }
  }, 180_000);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("the example's files are on the page, and the installed package is what the task imports", () => {
    expect(Object.keys(examples(readFileSync(join(ROOT, "docs", "tasks.md"), "utf8"))).sort()).toEqual([
      "georefresh.config.json",
      "parcels-task.mjs",
    ]);
    const resolved = execFileSync(
      "node",
      ["--input-type=module", "-e", 'console.log(import.meta.resolve("georefresh"))'],
      {
        cwd: project,
        encoding: "utf8",
      },
    ).trim();
    expect(resolved).toBe(`file://${join(project, "node_modules", "georefresh", "dist", "index.js")}`);
    expect(run(["--help"])).toMatch(/Usage: georefresh/);
  });

  it("backfills the task, reads it back, and a re-run changes nothing", () => {
    const first = run(["backfill", "--dataset", "parcels", "--from", "2026-01-01", "--to", "2026-03-31"]);
    expect(first).toMatch(/parcels: 6 partitions: 6 promoted/);
    const rows = JSON.parse(run(["read", "parcels", "--region", "weld", "--latest-date", "--format", "geojson"])) as {
      features: { properties: Record<string, unknown> }[];
    };
    expect(rows.features.map((f) => f.properties.parcel_id).sort()).toEqual(["weld-0", "weld-1", "weld-2"]);
    // From another folder: the task's relative inputs, like the store, resolve against the config file.
    const elsewhere = execFileSync(
      join(project, "node_modules", ".bin", "georefresh"),
      [
        "backfill",
        "--config",
        "project/georefresh.config.json",
        "--dataset",
        "parcels",
        "--from",
        "2026-01-01",
        "--to",
        "2026-03-31",
      ],
      { cwd: dir, encoding: "utf8" },
    );
    expect(elsewhere).toMatch(/parcels: 6 partitions: 6 unchanged/);
  });
});
