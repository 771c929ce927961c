import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Feature } from "../../src/geoparquet/features.js";
import { defineTask } from "../../src/task/task.js";

/**
 * A small real task for pipeline tests: reads a JSON list of [id, lon, lat] from an input file (the path comes
 * from params so tests can swap inputs), and makes a square of `size_km` (pinned per date) around each point.
 */
export function pointsTask(
  inputPath: string,
  options: { regions?: string[]; version?: string; delayMs?: number; keyed?: boolean } = {},
) {
  // keyed: a natural key and change events, and one square moved per logical date (the one whose id is the
  // day of the month), so every date's changelog has something in it.
  const day = (date: string) => Number(date.slice(8, 10));
  return defineTask({
    name: "test-squares",
    version: options.version ?? "1",
    cadence: "daily",
    regions: options.regions ?? ["north", "south"],
    regionsComplete: true,
    inputs: () => ({ points: inputPath }),
    pins: ["square_size"],
    crs: "OGC:CRS84",
    idColumn: "id",
    ...(options.keyed ? { key: ["id"], events: "changes" as const } : {}),
    columns: [
      { name: "id", type: "int32" },
      { name: "side", type: "string" },
      { name: "size", type: "string" },
    ],
    plausibility: { rowTolerance: 0.3 },
    async compute(ctx) {
      if (options.delayMs) await new Promise((r) => setTimeout(r, options.delayMs));
      const rows = JSON.parse(new TextDecoder().decode(await ctx.input("points"))) as [number, number, number][];
      const s = Number(ctx.pins.square_size) / 100;
      const north = ctx.partition.region === "north";
      return rows
        .filter(([, , lat]) => lat >= 40 === north)
        .map(([id, x0, y]): Feature => {
          const x = options.keyed && id === day(ctx.partition.date) ? x0 + 0.01 : x0;
          return {
            geometry: {
              type: "Polygon",
              coordinates: [
                [
                  [x, y],
                  [x + s, y],
                  [x + s, y + s],
                  [x, y + s],
                  [x, y],
                ],
              ],
            },
            properties: { id, side: ctx.partition.region, size: ctx.pins.square_size ?? null },
          };
        });
    },
  });
}

export const VERSIONS = {
  square_size: [
    { from: "2026-01-01", value: "1" },
    { from: "2026-06-01", value: "2" },
  ],
};

/** n points, half north of 40°N. */
export function writePoints(path: string, n: number, seed = 0): void {
  const rows = Array.from({ length: n }, (_, i) => [
    i,
    -100 + ((i * 7 + seed) % 50) * 0.5,
    30 + (i % 2) * 15 + ((i * 3) % 7) * 0.1,
  ]);
  writeFileSync(path, JSON.stringify(rows));
}

/**
 * A CLI config in `dir` for the points task over `input`: task.mjs, versions.json, and config.json naming each of
 * `datasets` (with any extra fields, e.g. "catalog") on the store ./store. Returns the config's path.
 */
export function writePointsConfig(
  dir: string,
  input: string,
  datasets: Record<string, Record<string, unknown>> = { pts: {} },
): string {
  const helper = fileURLToPath(new URL("./points-task.ts", import.meta.url));
  writeFileSync(
    join(dir, "task.mjs"),
    `import { pointsTask } from ${JSON.stringify(helper)};\nexport default pointsTask(${JSON.stringify(input)});\n`,
  );
  writeFileSync(join(dir, "versions.json"), JSON.stringify(VERSIONS));
  const config = join(dir, "config.json");
  const named = Object.fromEntries(
    Object.entries(datasets).map(([n, extra]) => [n, { module: "./task.mjs", ...extra }]),
  );
  writeFileSync(config, JSON.stringify({ store: "./store", versions: "./versions.json", datasets: named }));
  return config;
}
