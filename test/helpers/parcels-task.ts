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
  /** In a partial feed: this row deletes its key. */
  deleted?: boolean;
}

/**
 * A keyed task over county parcel feeds: `<dir>/<region>-<date>.json` holds the partition's parcels (a list of
 * Parcel). The natural key is parcel_id; `extra` overrides any definition field (key, plausibility, …).
 */
export function parcelsTask(dir: string, extra: Partial<TaskDefinition> = {}): TaskDefinition {
  const partial = extra.payload === "partial";
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
      ...(partial ? [{ name: "_deleted", type: "bool" as const }] : []),
    ],
    async compute(ctx) {
      const parcels = JSON.parse(new TextDecoder().decode(await ctx.input("feed"))) as Parcel[];
      return parcels.map((p): Feature => ({
        geometry: square(p.x, p.y, p.size ?? 0.01),
        properties: {
          parcel_id: p.parcel_id,
          zoning: p.zoning,
          owner: p.owner,
          ...(partial ? { _deleted: p.deleted ?? false } : {}),
        },
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

/** Date 2 of the issue: 3 added, 2 removed, 4 moved, 5 with edited attributes (P-0010 both moved and edited). */
export function dateTwo(base: Parcel[]): Parcel[] {
  const next = base
    .filter((p) => !["P-0001", "P-0002"].includes(p.parcel_id as string))
    .map((p) => {
      const id = p.parcel_id as string;
      if (["P-0010", "P-0011", "P-0012", "P-0013"].includes(id)) return { ...p, x: p.x + 0.001 };
      if (["P-0020", "P-0021", "P-0022", "P-0023"].includes(id)) return { ...p, zoning: "MU" };
      return p;
    })
    .map((p) => (p.parcel_id === "P-0010" ? { ...p, owner: "new owner" } : p));
  return [
    ...next,
    { parcel_id: "P-9001", zoning: "R1", owner: "a", x: -105, y: 40 },
    { parcel_id: "P-9002", zoning: "R1", owner: "b", x: -105.02, y: 40 },
    { parcel_id: "P-9003", zoning: "R1", owner: "c", x: -105.04, y: 40 },
  ];
}
