import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { bboxPolygon } from "../geo/bbox.js";
import type { Bbox } from "../geo/bbox.js";
import type { DatasetView } from "../views/reader.js";
import { extentOf } from "./collections.js";
import { escapeHtml } from "./html.js";
import { MAX_ZOOM } from "./tiles.js";

/**
 * MapLibre GL's browser bundle and stylesheet, served from the installed npm package (no CDN: the map page makes
 * no request off the server). Named by MapLibre's version, so a browser keeps them for good.
 */
export interface Asset {
  type: string;
  body: Buffer;
}

let assets: Map<string, Asset> | undefined;

export function mapAssets(): Map<string, Asset> {
  if (assets) return assets;
  const require = createRequire(import.meta.url);
  const pkg = require.resolve("maplibre-gl/package.json");
  const version = (JSON.parse(readFileSync(pkg, "utf8")) as { version: string }).version;
  const dist = join(dirname(pkg), "dist");
  assets = new Map([
    [`maplibre-gl-${version}.js`, { type: "text/javascript", body: readFileSync(join(dist, "maplibre-gl.js")) }],
    [`maplibre-gl-${version}.css`, { type: "text/css", body: readFileSync(join(dist, "maplibre-gl.css")) }],
  ]);
  return assets;
}

/** JSON inside a <script>: "<" escaped so no value can close the element. */
const scriptJson = (v: unknown) => JSON.stringify(v).replace(/</g, "\\u003c");

/**
 * Where the map opens: the box of most partitions (each side the 10th or 90th percentile of theirs), so that a
 * few far-flung regions (the Aleutians across the antimeridian, Guam) do not open it on the whole world. The
 * collection's extent stays the exact box; the map zooms out to the rest.
 */
function mostOf(view: DatasetView): Bbox | undefined {
  const boxes = view.partitions.flatMap((p) => (p.bboxLonLat ? [p.bboxLonLat] : []));
  if (boxes.length < 10) return extentOf(view);
  const at = (side: 0 | 1 | 2 | 3, q: number) => {
    const sorted = boxes.map((b) => b[side]).sort((a, b) => a - b);
    return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] as number;
  };
  return [at(0, 0.1), at(1, 0.1), at(2, 0.9), at(3, 0.9)];
}

function union(a: Bbox | undefined, b: Bbox): Bbox {
  return a ? [Math.min(a[0], b[0]), Math.min(a[1], b[1]), Math.max(a[2], b[2]), Math.max(a[3], b[3])] : b;
}

/**
 * The map page of a collection: its vector tiles in MapLibre GL, fitted to its extent, with a slider over its
 * logical dates: each stop draws the dataset as it stood on that date (each region's latest partition dated on
 * or before it), through the tiles' ?datetime=../DATE. Clicking a feature shows its attributes.
 */
export function mapPage(view: DatasetView, base: string): string {
  const [js, css] = [...mapAssets().keys()];
  const dates = [...new Set(view.partitions.map((p) => p.date))].sort();
  // Web Mercator ends at ±85.05°: an empty dataset opens on the whole world.
  const bbox = mostOf(view) ?? [-180, -85, 180, 85];
  // Each region's box, drawn at once from the manifests (no tile needed): a cold server's first tiles take
  // seconds, and the page shows where the data is meanwhile, and a "loading" line.
  const boxes = new Map<string, Bbox>();
  for (const p of view.partitions) if (p.bboxLonLat) boxes.set(p.region, union(boxes.get(p.region), p.bboxLonLat));
  const outlines = {
    type: "FeatureCollection",
    features: [...boxes].map(([region, box]) => ({
      type: "Feature",
      properties: { region },
      geometry: bboxPolygon(box),
    })),
  };
  const config = {
    dataset: view.dataset,
    outlines,
    tiles: `${base}/collections/${encodeURIComponent(view.dataset)}/tiles/WebMercatorQuad/{z}/{x}/{y}`,
    dates,
    bbox,
    maxzoom: MAX_ZOOM,
  };
  const title = escapeHtml(view.dataset);
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${title} · georefresh</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="stylesheet" href="${base}/assets/${css}">
<script src="${base}/assets/${js}"></script>
<style>
html,body{margin:0;height:100%;font:14px system-ui,sans-serif}
#map{position:absolute;inset:0}
#panel{position:absolute;top:10px;left:10px;background:#fff;padding:8px 12px;border-radius:6px;box-shadow:0 1px 4px #0004;min-width:260px}
#panel h1{font-size:15px;margin:0 0 6px}
#panel input{width:100%}
#panel a{color:#2563eb}
#status{display:none;margin-top:4px;color:#495057}
body[data-state=loading] #status{display:block}
</style></head>
<body><div id="map"></div>
<div id="panel"><h1>${title}</h1>
<label for="date">as it stood on <b id="date-label"></b></label>
<input id="date" type="range" min="0" step="1">
<div><a href="${base}/collections/${encodeURIComponent(view.dataset)}/items?f=html">items</a> · <a href="${base}/collections">collections</a></div>
<div id="status" role="status">loading tiles… (the regions' outlines are drawn meanwhile)</div>
</div>
<script>
const c = ${scriptJson(config)};
const slider = document.getElementById("date"), label = document.getElementById("date-label");
slider.max = String(Math.max(c.dates.length - 1, 0));
slider.value = slider.max;
const tilesAt = (i) => [c.tiles + (c.dates.length ? "?datetime=../" + c.dates[i] : "")];
const colour = "#d9480f";
const map = new maplibregl.Map({
  container: "map",
  canvasContextAttributes: { preserveDrawingBuffer: true },
  bounds: [[c.bbox[0], c.bbox[1]], [c.bbox[2], c.bbox[3]]],
  // A small dataset opens at street level, not so close that its features fill the screen.
  fitBoundsOptions: { padding: { top: 110, bottom: 20, left: 20, right: 60 }, maxZoom: 15 },
  style: {
    version: 8,
    sources: {
      data: { type: "vector", tiles: tilesAt(Number(slider.value)), maxzoom: c.maxzoom },
      outlines: { type: "geojson", data: c.outlines },
    },
    layers: [
      { id: "background", type: "background", paint: { "background-color": "#f8f9fa" } },
      { id: "outlines", type: "line", source: "outlines",
        paint: { "line-color": "#adb5bd", "line-width": 1, "line-dasharray": [2, 2] } },
      { id: "fill", type: "fill", source: "data", "source-layer": c.dataset,
        filter: ["==", ["geometry-type"], "Polygon"], paint: { "fill-color": colour, "fill-opacity": 0.35 } },
      { id: "line", type: "line", source: "data", "source-layer": c.dataset,
        filter: ["!=", ["geometry-type"], "Point"], paint: { "line-color": colour, "line-width": 1 } },
      { id: "point", type: "circle", source: "data", "source-layer": c.dataset,
        filter: ["==", ["geometry-type"], "Point"], paint: { "circle-color": colour, "circle-radius": 3 } },
    ],
  },
});
map.addControl(new maplibregl.NavigationControl());
const show = () => {
  const i = Number(slider.value);
  label.textContent = c.dates[i] ?? "now";
  document.body.dataset.date = c.dates[i] ?? "";
  document.body.dataset.state = "loading";
};
slider.addEventListener("input", () => {
  show();
  map.getSource("data").setTiles(tilesAt(Number(slider.value)));
});
map.on("dataloading", () => { document.body.dataset.state = "loading"; });
map.on("idle", () => { document.body.dataset.state = "idle"; });
map.on("load", () => { document.body.dataset.outlines = String(c.outlines.features.length); });
map.on("click", (e) => {
  const [f] = map.queryRenderedFeatures(e.point);
  if (!f) return;
  const rows = Object.entries(f.properties).map(([k, v]) => "<tr><th>" + esc(k) + "</th><td>" + esc(v) + "</td></tr>");
  new maplibregl.Popup().setLngLat(e.lngLat).setHTML("<table>" + rows.join("") + "</table>").addTo(map);
});
const esc = (v) => String(v).replace(/[&<>"']/g, (ch) => "&#" + ch.charCodeAt(0) + ";");
show();
</script></body></html>
`;
}
