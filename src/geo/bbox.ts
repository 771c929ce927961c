import { crsFromCode, CRS84_CRS, transformer } from "./crs/crs.js";

/** [minx, miny, maxx, maxy]. */
export type Bbox = [number, number, number, number];

/** A box as a GeoJSON Polygon, counterclockwise from its south-west corner. */
export function bboxPolygon([x0, y0, x1, y1]: Bbox): { type: "Polygon"; coordinates: number[][][] } {
  return {
    type: "Polygon",
    coordinates: [
      [
        [x0, y0],
        [x1, y0],
        [x1, y1],
        [x0, y1],
        [x0, y0],
      ],
    ],
  };
}

/** Points per edge when a bbox is carried into another CRS: its edges curve, so corners alone undershoot. */
const EDGE_POINTS = 16;

/**
 * A bbox in `crs` as the lon/lat (OGC:CRS84) box that contains it: the transformed outline, densified. What
 * STAC's `bbox` and `urls --bbox` compare in, whatever the storage CRS. Rounded to 1e-7° (about 1 cm), so
 * equal inputs give equal text on every platform.
 */
export function bboxToLonLat(bbox: Bbox, crs: string): Bbox {
  const from = crsFromCode(crs);
  if (from.proj4 === CRS84_CRS.proj4) return bbox;
  return carried(bbox, transformer(from, CRS84_CRS));
}

/** A lon/lat box as the box in `crs` that contains it (densified likewise), to compare with rows stored in `crs`. */
export function bboxFromLonLat(bbox: Bbox, crs: string): Bbox {
  const to = crsFromCode(crs);
  if (to.proj4 === CRS84_CRS.proj4) return bbox;
  return carried(bbox, transformer(CRS84_CRS, to));
}

function carried(bbox: Bbox, t: ReturnType<typeof transformer>): Bbox {
  const [x0, y0, x1, y1] = bbox;
  const xs: number[] = [];
  const ys: number[] = [];
  for (let i = 0; i <= EDGE_POINTS; i++) {
    const f = i / EDGE_POINTS;
    for (const p of [
      [x0 + (x1 - x0) * f, y0],
      [x0 + (x1 - x0) * f, y1],
      [x0, y0 + (y1 - y0) * f],
      [x1, y0 + (y1 - y0) * f],
    ]) {
      const [x, y] = t(p as [number, number]);
      xs.push(x as number);
      ys.push(y as number);
    }
  }
  const r = (v: number, dir: "down" | "up") => (dir === "down" ? Math.floor(v * 1e7) : Math.ceil(v * 1e7)) / 1e7;
  return [r(Math.min(...xs), "down"), r(Math.min(...ys), "down"), r(Math.max(...xs), "up"), r(Math.max(...ys), "up")];
}

/** Whether two boxes share a point (edges touching count). */
export function bboxesIntersect(a: Bbox, b: Bbox): boolean {
  return a[0] <= b[2] && b[0] <= a[2] && a[1] <= b[3] && b[1] <= a[3];
}

/** The smallest box holding all of them; undefined for none. */
export function unionBbox(boxes: Iterable<Bbox>): Bbox | undefined {
  let u: Bbox | undefined;
  for (const b of boxes)
    u = u ? [Math.min(u[0], b[0]), Math.min(u[1], b[1]), Math.max(u[2], b[2]), Math.max(u[3], b[3])] : [...b];
  return u;
}

/** "minx,miny,maxx,maxy" → Bbox, or a message saying what is wrong with it. */
export function parseBbox(text: string): Bbox | string {
  const parts = text.split(",").map((s) => Number(s.trim()));
  if (parts.length !== 4 || parts.some((n) => !Number.isFinite(n)))
    return `bbox ${JSON.stringify(text)}: give four numbers minx,miny,maxx,maxy (lon/lat degrees, WGS84)`;
  const [x0, y0, x1, y1] = parts as Bbox;
  if (x0 > x1 || y0 > y1) return `bbox ${JSON.stringify(text)}: minx must not exceed maxx, nor miny maxy`;
  if (x0 < -180 || x1 > 180 || y0 < -90 || y1 > 90)
    return `bbox ${JSON.stringify(text)}: lon/lat must lie within -180..180 and -90..90`;
  return [x0, y0, x1, y1];
}
