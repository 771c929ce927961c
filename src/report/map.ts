import { simplify } from "@turf/turf";
import type { Geometry, Position } from "../geo/geometry.js";
import { fitProjection, groupFootprints, near, toPixels } from "./map-projection.js";
import type { Fitted } from "./map-projection.js";
import type { Footprint } from "./model.js";
import { esc } from "./svg.js";

/** How each region is drawn: its fill (state or change) and its hover text. */
export interface MapStyle {
  fill(fp: Footprint): string;
  title(fp: Footprint): string;
}

const MAIN_MAX_HEIGHT = 560;
const INSET = { width: 220, height: 130, gap: 14, label: 16 };

/**
 * The map: each region's latest current footprints in an equal-area projection fitted to them, far-flung regions
 * in insets of their own, a graticule with degrees, a scale bar. Geometries are simplified to half a pixel after
 * projecting (Douglas–Peucker, topology not preserved: it is a picture). Self-contained SVG, nothing fetched.
 */
export function mapSvg(footprints: readonly Footprint[], style: MapStyle, width = 960): string {
  const { main, insets } = groupFootprints(footprints);
  const fitted = fitProjection(main);
  if (!fitted) return `<p class="empty">No current partition to draw.</p>`;
  const mainPx = toPixels(fitted.extent, width, MAIN_MAX_HEIGHT, 24);
  const parts: string[] = [
    `<clipPath id="main-clip"><rect width="${mainPx.width}" height="${mainPx.height}"/></clipPath>`,
    `<g class="graticule" clip-path="url(#main-clip)">${graticule(fitted, mainPx.px, [mainPx.width, mainPx.height])}</g>`,
    ...main.map((fp) => regionSvg(fp, fitted, mainPx.px, style)),
    scaleBar(mainPx.metresPerPixel, mainPx.height),
  ];
  // Insets in rows under the main map, each at its own scale (the legend says so).
  const rowWidth = Math.max(mainPx.width, 2 * INSET.width + INSET.gap);
  let [x, y, rowHeight, widest] = [0, mainPx.height + INSET.gap, 0, 0];
  for (const group of insets) {
    const own = fitProjection(group);
    if (!own) continue;
    const px = toPixels(own.extent, INSET.width, INSET.height, 6);
    px.width = Math.max(px.width, 64); // room for the label
    if (x > 0 && x + px.width > rowWidth) [x, y, rowHeight] = [0, y + rowHeight + INSET.gap, 0];
    parts.push(
      `<g class="inset" data-regions="${esc(group.map((f) => f.region).join(","))}" transform="translate(${x} ${y})">` +
        `<rect class="inset-frame" width="${px.width}" height="${px.height + INSET.label}"/>` +
        group.map((fp) => regionSvg(fp, own, px.px, style)).join("") +
        `<text class="inset-label" x="4" y="${px.height + INSET.label - 4}">${esc(group.map((f) => f.region).join(", "))}</text></g>`,
    );
    widest = Math.max(widest, x + px.width);
    x += px.width + INSET.gap;
    rowHeight = Math.max(rowHeight, px.height + INSET.label);
  }
  const height = Math.max(mainPx.height, y + rowHeight);
  const svgWidth = Math.max(mainPx.width, widest);
  return `<svg class="map" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${svgWidth} ${height}" width="${svgWidth}" height="${height}">${parts.join("")}</svg>`;
}

function regionSvg(fp: Footprint, fitted: Fitted, px: (xy: [number, number]) => [number, number], style: MapStyle) {
  const toPx = (p: Position) => px(fitted.forward(p));
  const d = fp.geometries
    .map((g) => {
      const moved = mapGeometry(g, toPx);
      return g.type === "Point" || g.type === "MultiPoint"
        ? pathOf(moved)
        : pathOf(simplify(moved as never, { tolerance: 0.5, highQuality: false }) as unknown as Geometry);
    })
    .join("");
  return (
    `<g class="region" data-region="${esc(fp.region)}" data-date="${fp.date}"><title>${esc(style.title(fp))}</title>` +
    `<path class="footprint" d="${d}" fill="${style.fill(fp)}"/></g>`
  );
}

function mapGeometry(g: Geometry, f: (p: Position) => [number, number]): Geometry {
  const walk = (c: unknown): unknown =>
    Array.isArray(c) && typeof c[0] === "number" ? f(c as Position) : (c as unknown[]).map(walk);
  if (g.type === "GeometryCollection") return { ...g, geometries: g.geometries.map((x) => mapGeometry(x, f)) };
  return { ...g, coordinates: walk(g.coordinates) } as Geometry;
}

function pathOf(g: Geometry): string {
  const pt = (p: Position) => `${(p[0] as number).toFixed(1)} ${(p[1] as number).toFixed(1)}`;
  const line = (ps: Position[], close: boolean) => (ps.length ? `M${ps.map(pt).join("L")}${close ? "Z" : ""}` : "");
  switch (g.type) {
    case "Point":
      return g.coordinates.length ? `M${pt(g.coordinates)}m-2 0a2 2 0 1 0 4 0a2 2 0 1 0 -4 0` : "";
    case "MultiPoint":
      return g.coordinates.map((c) => pathOf({ type: "Point", coordinates: c })).join("");
    case "LineString":
      return line(g.coordinates, false);
    case "MultiLineString":
      return g.coordinates.map((l) => line(l, false)).join("");
    case "Polygon":
      return g.coordinates.map((r) => line(r, true)).join("");
    case "MultiPolygon":
      return g.coordinates.map((p) => p.map((r) => line(r, true)).join("")).join("");
    case "GeometryCollection":
      return g.geometries.map(pathOf).join("");
  }
}

/** Meridians and parallels every 1, 2, 5 or 10 degrees (by the extent), labelled where they leave the map. */
function graticule(
  fitted: Fitted,
  px: (xy: [number, number]) => [number, number],
  [width, height]: [number, number],
): string {
  const [x0, y0, x1, y1] = fitted.lonLat;
  const range = Math.max(x1 - x0, y1 - y0);
  const step = range > 40 ? 10 : range > 16 ? 5 : range > 6 ? 2 : 1;
  const [lonA, lonB] = [Math.floor(x0 / step) * step, Math.ceil(x1 / step) * step];
  const [latA, latB] = [Math.max(-89, Math.floor(y0 / step) * step), Math.min(89, Math.ceil(y1 / step) * step)];
  const at = (lon: number, lat: number) => px(fitted.forward([lon, lat]));
  const line = (pts: [number, number][]) => `M${pts.map(([a, b]) => `${a.toFixed(1)} ${b.toFixed(1)}`).join("L")}`;
  const samples = (a: number, b: number) => Array.from({ length: 41 }, (_, i) => a + ((b - a) * i) / 40);
  const lines: string[] = [];
  const labels: string[] = [];
  // A label half off the edge is noise: only those well inside are drawn.
  const inside = ([x, y]: [number, number]) => x > 24 && x < width - 24 && y > 12 && y < height - 4;
  for (let lon = lonA; lon <= lonB; lon += step) {
    lines.push(line(samples(latA, latB).map((lat) => at(lon, lat))));
    const [lx, ly] = at(lon, y0);
    if (inside([lx, ly + 14]))
      labels.push(
        `<text x="${lx.toFixed(1)}" y="${(ly + 14).toFixed(1)}" text-anchor="middle">${degrees(lon, "E", "W")}</text>`,
      );
  }
  for (let lat = latA; lat <= latB; lat += step) {
    lines.push(line(samples(lonA, lonB).map((lon) => at(lon, lat))));
    // At the east end of the data: past the coast for most datasets, out of the way.
    const [lx, ly] = at(x1, lat);
    if (inside([lx + 4, ly - 3]))
      labels.push(`<text x="${(lx + 4).toFixed(1)}" y="${(ly - 3).toFixed(1)}">${degrees(lat, "N", "S")}</text>`);
  }
  return `<path class="grid" d="${lines.join("")}"/>${labels.join("")}`;
}

function degrees(v: number, pos: string, neg: string): string {
  const w = near(v, 0);
  return `${Math.abs(w)}°${w > 0 ? pos : w < 0 ? neg : ""}`;
}

/** A bar of a round length (1, 2 or 5 × 10ⁿ km) about 120 px long, bottom left; true along the standard parallels. */
function scaleBar(metresPerPixel: number, height: number): string {
  const target = 120 * metresPerPixel;
  const pow = 10 ** Math.floor(Math.log10(target));
  const metres = [5, 2, 1].map((k) => k * pow).find((m) => m <= target) as number;
  const w = metres / metresPerPixel;
  const label = metres >= 1000 ? `${metres / 1000} km` : `${metres} m`;
  const [x, y] = [12, height - 12];
  return (
    `<g class="scale" data-metres="${metres}"><path d="M${x} ${y - 5}V${y}H${(x + w).toFixed(1)}V${y - 5}"/>` +
    `<text x="${(x + w + 6).toFixed(1)}" y="${y}">${label}</text></g>`
  );
}
