import proj4 from "proj4";
import type { Geometry, Position } from "../geo/geometry.js";
import { forEachPosition } from "../geo/wkb.js";
import type { Footprint } from "./model.js";

/** Where a footprint lies: the circular mean of its longitudes (so the Aleutians do not average to 0°), mean latitude. */
export function centreOf(geometries: readonly Geometry[]): [number, number] {
  let [sx, sy, lat, n] = [0, 0, 0, 0];
  let seen = 0;
  for (const g of geometries)
    forEachPosition(g, (p) => {
      // Every vertex of a few thousand counties is more than a centre needs: a stride keeps it fast.
      if (seen++ % 7 !== 0) return;
      const lon = ((p[0] as number) * Math.PI) / 180;
      sx += Math.cos(lon);
      sy += Math.sin(lon);
      lat += p[1] as number;
      n++;
    });
  if (!n) return [0, 0];
  return [(Math.atan2(sy, sx) * 180) / Math.PI, lat / n];
}

/** `lon` as a longitude within 180° of `ref`, so a group across the antimeridian is one interval. */
export const near = (lon: number, ref: number) => ((((lon - ref + 540) % 360) + 360) % 360) - 180 + ref;

/** Centres closer than this (great-circle degrees) share a map: Florida stays with Georgia, Puerto Rico goes apart. */
const LINK_DEGREES = 10;

/**
 * The main map and the insets: centres closer than LINK_DEGREES to any other of a group join it (single linkage);
 * the largest group is the main map and each other group (Alaska; Hawaii; Guam with the Northern Marianas beside
 * the lower 48) gets an inset, so none shrinks the rest to a speck and none is dropped.
 */
export function groupFootprints(footprints: readonly Footprint[]): { main: Footprint[]; insets: Footprint[][] } {
  const centres = footprints.map((f) => centreOf(f.geometries));
  const group = footprints.map((_, i) => i);
  const root = (i: number): number => (group[i] === i ? i : (group[i] = root(group[i] as number)));
  for (let a = 0; a < centres.length; a++)
    for (let b = a + 1; b < centres.length; b++)
      if (arcDegrees(centres[a] as [number, number], centres[b] as [number, number]) < LINK_DEGREES)
        group[root(a)] = root(b);
  const groups = new Map<number, Footprint[]>();
  footprints.forEach((f, i) => groups.set(root(i), [...(groups.get(root(i)) ?? []), f]));
  // The largest group is the main map; ties go to the one listed first, so the layout does not depend on chance.
  const sorted = [...groups.values()].sort((a, b) => b.length - a.length);
  return { main: sorted[0] ?? [], insets: sorted.slice(1) };
}

/** The great-circle distance between two lon/lat points, in degrees. */
function arcDegrees([x1, y1]: [number, number], [x2, y2]: [number, number]): number {
  const r = Math.PI / 180;
  const c = Math.sin(y1 * r) * Math.sin(y2 * r) + Math.cos(y1 * r) * Math.cos(y2 * r) * Math.cos((x2 - x1) * r);
  return Math.acos(Math.min(1, Math.max(-1, c))) / r;
}

function meanLongitude(lons: readonly number[]): number {
  let [x, y] = [0, 0];
  for (const l of lons) {
    x += Math.cos((l * Math.PI) / 180);
    y += Math.sin((l * Math.PI) / 180);
  }
  return (Math.atan2(y, x) * 180) / Math.PI;
}

/** A projection fitted to some footprints: lon/lat → metres (Albers equal-area), and their projected extent. */
export interface Fitted {
  forward: (p: Position) => [number, number];
  extent: [number, number, number, number];
  /** For the graticule: the lon/lat range the footprints cover (longitudes near `lon0`). */
  lonLat: [number, number, number, number];
  lon0: number;
}

/**
 * Albers equal-area conic centred on the footprints, standard parallels at a sixth of their latitude range from
 * either end (the usual choice; the US's 29.5° and 45.5° come out close): areas compare truly across the map.
 */
export function fitProjection(footprints: readonly Footprint[]): Fitted | undefined {
  const centres = footprints.map((f) => centreOf(f.geometries));
  const lon0 = meanLongitude(centres.map((c) => c[0]));
  let [x0, y0, x1, y1] = [Infinity, Infinity, -Infinity, -Infinity];
  for (const f of footprints)
    for (const g of f.geometries)
      forEachPosition(g, (p) => {
        const x = near(p[0] as number, lon0);
        const y = p[1] as number;
        if (x < x0) x0 = x;
        if (x > x1) x1 = x;
        if (y < y0) y0 = y;
        if (y > y1) y1 = y;
      });
  if (!Number.isFinite(x0)) return undefined;
  const span = Math.max(y1 - y0, 1);
  let [lat1, lat2] = [y0 + span / 6, y1 - span / 6];
  if (Math.abs(lat1 + lat2) < 1e-6) [lat1, lat2] = [lat1 + 1, lat2 + 1]; // aea needs lat_1 ≠ −lat_2
  // proj4js needs x_0/y_0 spelt out for aea (without them every point comes back NaN).
  const def = `+proj=aea +lat_0=${(y0 + y1) / 2} +lon_0=${lon0} +lat_1=${lat1} +lat_2=${lat2} +x_0=0 +y_0=0 +ellps=WGS84 +units=m +no_defs`;
  const converter = proj4("EPSG:4326", def);
  const forward = (p: Position): [number, number] => {
    const [x, y] = converter.forward([near(p[0] as number, lon0), p[1] as number]);
    return [x as number, y as number];
  };
  let [ex0, ey0, ex1, ey1] = [Infinity, Infinity, -Infinity, -Infinity];
  for (const f of footprints)
    for (const g of f.geometries)
      forEachPosition(g, (p) => {
        const [x, y] = forward(p);
        if (x < ex0) ex0 = x;
        if (x > ex1) ex1 = x;
        if (y < ey0) ey0 = y;
        if (y > ey1) ey1 = y;
      });
  return { forward, extent: [ex0, ey0, ex1, ey1], lonLat: [x0, y0, x1, y1], lon0 };
}

/** Metres → pixels in a box of at most `maxW` × `maxH` (with a margin), keeping the aspect: the size it takes. */
export function toPixels(
  extent: [number, number, number, number],
  maxW: number,
  maxH: number,
  margin: number,
): { px: (xy: [number, number]) => [number, number]; width: number; height: number; metresPerPixel: number } {
  const [x0, y0, x1, y1] = extent;
  const w = Math.max(x1 - x0, 1);
  const h = Math.max(y1 - y0, 1);
  const scale = Math.min((maxW - 2 * margin) / w, (maxH - 2 * margin) / h);
  return {
    px: ([x, y]) => [margin + (x - x0) * scale, margin + (y1 - y) * scale],
    width: Math.round(w * scale + 2 * margin),
    height: Math.round(h * scale + 2 * margin),
    metresPerPixel: 1 / scale,
  };
}
