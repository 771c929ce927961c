import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Feature } from "../../src/geoparquet/features.js";
import { defineTask } from "../../src/task/task.js";
import type { TaskDefinition } from "../../src/task/task.js";

/** A parcel as the test feeds write it: a square of `size` degrees at (x, y). */
export interface Parcel {
  parcel_id: string | null;
  zoning: string;
  owner: string;
  x: number;
  y: number;
  size?: number;
}

/**
 * A keyed task over county parcel feeds: `<dir>/<region>-<date>.json` holds the partition's parcels (a list of
 * Parcel). The natural key is parcel_id; `extra` overrides any definition field (key, plausibility, …).
 */
export function parcelsTask(dir: string, extra: Partial<TaskDefinition> = {}): TaskDefinition {
  return defineTask({
    name: "test-parcels",
    version: "1",
    cadence: "daily",
    regions: ["weld", "larimer"],
    inputs: (p) => ({ feed: join(dir, `${p.region}-${p.date}.json`) }),
    crs: "OGC:CRS84",
    key: ["parcel_id"],
    columns: [
      { name: "parcel_id", type: "string" },
      { name: "zoning", type: "string" },
      { name: "owner", type: "string" },
    ],
    async compute(ctx) {
      const parcels = JSON.parse(new TextDecoder().decode(await ctx.input("feed"))) as Parcel[];
      return parcels.map((p): Feature => ({
        geometry: square(p.x, p.y, p.size ?? 0.01),
        properties: { parcel_id: p.parcel_id, zoning: p.zoning, owner: p.owner },
      }));
    },
    ...extra,
  });
}

function square(x: number, y: number, s: number) {
  return {
    type: "Polygon" as const,
    coordinates: [
      [
        [x, y],
        [x + s, y],
        [x + s, y + s],
        [x, y + s],
        [x, y],
      ],
    ],
  };
}

/** n parcels P-0000… on a grid near Greeley, CO. */
export function parcels(n: number): Parcel[] {
  return Array.from({ length: n }, (_, i) => ({
    parcel_id: `P-${String(i).padStart(4, "0")}`,
    zoning: ["R1", "R2", "C1", "AG"][i % 4] as string,
    owner: `owner ${i}`,
    x: -104.8 + (i % 20) * 0.02,
    y: 40.3 + Math.floor(i / 20) * 0.02,
  }));
}

export function writeFeed(dir: string, region: string, date: string, rows: Parcel[]): void {
  writeFileSync(join(dir, `${region}-${date}.json`), JSON.stringify(rows));
}
