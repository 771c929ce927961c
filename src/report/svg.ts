import { simplify } from "@turf/turf";
import type { Bbox } from "../geo/bbox.js";
import { unionBbox } from "../geo/bbox.js";
import type { Geometry, Position } from "../geo/geometry.js";
import type { Footprint } from "./model.js";

const esc = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
export { esc };

/** A lon/lat → SVG pixel mapping: equirectangular, x scaled by the cosine of the middle latitude. */
function projection(box: Bbox, width: number): { f: (p: Position) => [number, number]; height: number } {
  const [x0, y0, x1, y1] = box;
  const k = Math.cos((((y0 + y1) / 2) * Math.PI) / 180);
  const w = Math.max((x1 - x0) * k, 1e-9);
  const scale = width / w;
  const height = Math.max(40, Math.round((y1 - y0) * scale));
  return { f: (p) => [((p[0] as number) - x0) * k * scale, (y1 - (p[1] as number)) * scale], height };
}

function pathOf(g: Geometry, f: (p: Position) => [number, number]): string {
  const pt = (p: Position) =>
    f(p)
      .map((v) => v.toFixed(1))
      .join(" ");
  const line = (ps: Position[], close: boolean) => (ps.length ? `M${ps.map(pt).join("L")}${close ? "Z" : ""}` : "");
  switch (g.type) {
    case "Point":
      return g.coordinates.length ? `M${pt(g.coordinates)}m-2 0a2 2 0 1 0 4 0a2 2 0 1 0 -4 0` : "";
    case "MultiPoint":
      return g.coordinates.map((c) => pathOf({ type: "Point", coordinates: c }, f)).join("");
    case "LineString":
      return line(g.coordinates, false);
    case "MultiLineString":
      return g.coordinates.map((l) => line(l, false)).join("");
    case "Polygon":
      return g.coordinates.map((r) => line(r, true)).join("");
    case "MultiPolygon":
      return g.coordinates.map((p) => p.map((r) => line(r, true)).join("")).join("");
    case "GeometryCollection":
      return g.geometries.map((c) => pathOf(c, f)).join("");
  }
}

/**
 * The map: each region's latest current footprints, simplified to about a pixel at this size (Douglas–Peucker,
 * topology not preserved: it is a picture), with the outline of the region's bbox.
 */
export function mapSvg(footprints: Footprint[], width = 960): string {
  const { box, outside } = mapExtent(footprints);
  if (!box) return `<p class="empty">No current partition to draw.</p>`;
  const pad = Math.max(box[2] - box[0], box[3] - box[1]) * 0.02;
  const { f, height } = projection([box[0] - pad, box[1] - pad, box[2] + pad, box[3] + pad], width);
  const tolerance = (box[2] - box[0] + 2 * pad) / width; // degrees per pixel
  const parts: string[] = [];
  footprints.forEach((fp, i) => {
    const hue = (i * 137.508) % 360; // golden angle: neighbours in the list get distant colours
    const d = fp.geometries
      .map((g) =>
        g.type === "Point" || g.type === "MultiPoint"
          ? pathOf(g, f)
          : pathOf(simplify(g as never, { tolerance, highQuality: false }) as unknown as Geometry, f),
      )
      .join("");
    const [a, b] = [f([fp.bbox[0], fp.bbox[3]]), f([fp.bbox[2], fp.bbox[1]])];
    parts.push(
      `<g class="region" data-region="${esc(fp.region)}"><title>${esc(fp.region)} ${fp.date}</title>` +
        `<path class="footprint" d="${d}" fill="hsl(${hue.toFixed(0)} 55% 55% / 0.55)" stroke="hsl(${hue.toFixed(0)} 55% 30%)"/>` +
        `<rect class="bbox" x="${a[0].toFixed(1)}" y="${a[1].toFixed(1)}" width="${(b[0] - a[0]).toFixed(1)}" height="${(b[1] - a[1]).toFixed(1)}"/></g>`,
    );
  });
  const note = outside.length
    ? `<p class="sub">Outside this map (far from the other regions or across the antimeridian): ${outside.map(esc).join(", ")}</p>`
    : "";
  return `<svg class="map" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${width} ${height}" width="${width}" height="${height}">${parts.join("")}</svg>${note}`;
}

/**
 * The extent drawn: the regions whose centres lie in the middle 80% (by longitude and latitude) and whose boxes
 * are narrower than a hemisphere, so one far territory or an antimeridian-crossing box does not shrink the rest
 * to a speck. The others are named under the map (SVG clips what falls outside).
 */
function mapExtent(footprints: Footprint[]): { box: Bbox | undefined; outside: string[] } {
  const centre = (b: Bbox) => [(b[0] + b[2]) / 2, (b[1] + b[3]) / 2] as const;
  const sane = footprints.filter((f) => f.bbox[2] - f.bbox[0] < 180);
  const q = (xs: number[], p: number) => xs.sort((a, b) => a - b)[Math.floor(p * (xs.length - 1))] as number;
  const lons = sane.map((f) => centre(f.bbox)[0]);
  const lats = sane.map((f) => centre(f.bbox)[1]);
  const [lo0, lo1, la0, la1] = [q([...lons], 0.1), q([...lons], 0.9), q([...lats], 0.1), q([...lats], 0.9)];
  // At least 20° either way: a handful of regions is never thinned out, only true outliers are.
  const spanX = Math.max(lo1 - lo0, 20);
  const spanY = Math.max(la1 - la0, 20);
  const inside = sane.filter((f) => {
    const [x, y] = centre(f.bbox);
    return x >= lo0 - spanX && x <= lo1 + spanX && y >= la0 - spanY && y <= la1 + spanY;
  });
  const keep = new Set(inside.map((f) => f.region));
  return {
    box: unionBbox(inside.map((f) => f.bbox)),
    outside: footprints.filter((f) => !keep.has(f.region)).map((f) => f.region),
  };
}

/** A sparkline of values over the dates (gaps where a date has none). */
export function sparkline(values: (number | undefined)[], label: string, width = 160, height = 26): string {
  const present = values.filter((v): v is number => v !== undefined);
  if (!present.length) return `<svg class="spark" width="${width}" height="${height}"></svg>`;
  const lo = Math.min(...present);
  const hi = Math.max(...present);
  const x = (i: number) => (values.length === 1 ? width / 2 : (i / (values.length - 1)) * (width - 4) + 2);
  const y = (v: number) => (hi === lo ? height / 2 : height - 3 - ((v - lo) / (hi - lo)) * (height - 6));
  const segments: string[] = [];
  let run: string[] = [];
  values.forEach((v, i) => {
    if (v === undefined) {
      if (run.length) segments.push(run.join(" "));
      run = [];
    } else run.push(`${x(i).toFixed(1)},${y(v).toFixed(1)}`);
  });
  if (run.length) segments.push(run.join(" "));
  const lines = segments.map((s) => `<polyline points="${s}"/>`).join("");
  return `<svg class="spark" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}"><title>${esc(label)}: ${lo.toLocaleString("en-US")} – ${hi.toLocaleString("en-US")}</title>${lines}</svg>`;
}
