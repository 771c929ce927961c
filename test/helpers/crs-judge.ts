import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { gunzipSync } from "node:zlib";

/** One of PROJ's readings (scripts/crs-judge.py): x, y in the CRS, PROJ's WGS 84 lon/lat, 1 where it used its ballpark. */
export type JudgedPoint = [number, number, number, number, 0 | 1];

export interface Judged {
  proj: string;
  epsg: string;
  codes: Record<string, { points: JudgedPoint[] } | { error: string }>;
}

/** test/fixtures/crs-judge.json.gz: PROJ's readings of every EPSG code (npm run build:crs-judge). */
export function judgedCodes(): Judged {
  const file = fileURLToPath(new URL("../fixtures/crs-judge.json.gz", import.meta.url));
  return JSON.parse(gunzipSync(readFileSync(file)).toString("utf8")) as Judged;
}

/** How far a lon/lat is from PROJ's, in degrees (the longitude taken round the antimeridian); Infinity if not finite. */
export function gap(a: number[], lon: number, lat: number): number {
  const dl = Math.abs((((((a[0] as number) - lon + 540) % 360) + 360) % 360) - 180);
  const d = Math.max(dl, Math.abs((a[1] as number) - lat));
  return Number.isFinite(d) ? d : Infinity;
}
