import { expect } from "vitest";
import { parseJsonExact } from "../../src/sources/geojson/exact-json.js";
import { runCliHere } from "./cli.js";

/** GeoJSON rows as OGR's judge (ogr_judge.py) and `georefresh read --format geojson` print them. */
export type Geometry = { type: string; coordinates?: unknown; geometries?: Geometry[] } | null;

export interface Row {
  properties: Record<string, unknown>;
  geometry: Geometry;
}

/** Every position of a geometry, in order. */
export function positions(g: Geometry): number[][] {
  const out: number[][] = [];
  const walk = (c: unknown): void => {
    if (Array.isArray(c) && typeof c[0] === "number") out.push(c as number[]);
    else if (Array.isArray(c)) c.forEach(walk);
  };
  if (g?.geometries) g.geometries.forEach((x) => out.push(...positions(x)));
  else walk(g?.coordinates);
  return out;
}

/** A dataset's latest partition of `region` as `georefresh read --format geojson` prints it (exit 0, no stderr). */
export async function readRows(dataset: string, config: string, region: string): Promise<Row[]> {
  const r = await runCliHere([
    "read",
    dataset,
    "--config",
    config,
    "--region",
    region,
    "--latest-date",
    "--format",
    "geojson",
  ]);
  expect(r.stderr).toBe("");
  expect(r.code).toBe(0);
  // Parsed keeping integers past 2^53 whole, as the export writes them.
  return (parseJsonExact(r.stdout) as { features: Row[] }).features;
}
