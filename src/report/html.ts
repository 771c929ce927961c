import type { CellState, ReportModel } from "./model.js";
import { mapSvg } from "./map.js";
import type { Footprint } from "./model.js";
import { esc, sparkline } from "./svg.js";

/** The state colours (shared by the legend, the cells and the tests). */
export const STATE_COLOURS: Record<CellState, string> = {
  current: "#2e7d32",
  overridden: "#f9a825",
  refused: "#c62828",
  retired: "#9e9e9e",
  "never-built": "#eceff1",
};

/** Row-level change, as a stripe under a cell: the share of keys that changed, in four steps (docs/changes.md). */
export const CHANGE_STEPS = [
  { upTo: 0, colour: "transparent", label: "no key changed" },
  { upTo: 0.01, colour: "#c8b6f0", label: "up to 1 % of keys changed" },
  { upTo: 0.1, colour: "#8a63d2", label: "up to 10 %" },
  { upTo: Infinity, colour: "#4b2a99", label: "more than 10 %" },
] as const;

/** The step of a change set: how many keys changed of all the keys on either side. */
export function changeStep(c: {
  added: number;
  removed: number;
  geometry_changed: number;
  attributes_changed: number;
  unchanged: number;
}): number {
  const changed = c.added + c.removed + Math.max(c.geometry_changed, c.attributes_changed);
  const keys = c.added + c.removed + c.unchanged + Math.max(c.geometry_changed, c.attributes_changed);
  const share = keys ? changed / keys : 0;
  return CHANGE_STEPS.findIndex((s) => share <= s.upTo);
}

const CSS = `
body{font:14px/1.4 system-ui,sans-serif;margin:24px;color:#1f2328;background:#fff}
h1{font-size:20px;margin:0 0 4px}h2{font-size:16px;margin:24px 0 8px}
.sub{color:#57606a;margin:0 0 16px}
.legend span{display:inline-block;margin-right:14px}.legend i{display:inline-block;width:12px;height:12px;margin-right:4px;vertical-align:-1px;border:1px solid #d0d7de}
.grid{display:grid;gap:1px;align-items:center;overflow-x:auto;padding-bottom:4px}
.grid .name{font-size:12px;white-space:nowrap;padding-right:8px}
.grid .head{font-size:10px;color:#57606a;writing-mode:vertical-rl;transform:rotate(180deg);height:64px}
.cell{width:100%;min-width:4px;height:18px;border-radius:2px;overflow:hidden}.grid .name{line-height:26px}
.cell .chg{display:block;height:6px;margin-top:12px}
${CHANGE_STEPS.map((s, i) => `.c-${i}{background:${s.colour}}`).join("")}
${Object.entries(STATE_COLOURS)
  .map(([s, c]) => `.s-${s}{background:${c}}`)
  .join("")}
.trend{padding-left:12px}.grid .head.trend-head{writing-mode:horizontal-tb;transform:none;height:auto;padding-left:12px;align-self:end}
.spark polyline{fill:none;stroke:#0969da;stroke-width:1.5}
.map{border:1px solid #d0d7de;background:#f6f8fa;max-width:100%;height:auto;font-size:10px}
.map .footprint{stroke:#1f2328;stroke-opacity:.35;stroke-width:.4;fill-opacity:.8}
.map .grid{fill:none;stroke:#8c959f;stroke-opacity:.45;stroke-width:.6}.map text{fill:#57606a}
.map .scale path{fill:none;stroke:#1f2328;stroke-width:1.5}.map .scale text{fill:#1f2328;font-size:11px}
.map .inset-frame{fill:#fff;stroke:#d0d7de}
.empty{color:#57606a}
`;

/**
 * How the map colours a region: the state of the partition drawn (its latest current one, or refused since), and
 * for a keyed dataset the change step of that promotion where any key changed. The legend says which is which.
 */
function mapStyle(model: ReportModel): { style: Parameters<typeof mapSvg>[1]; legend: string } {
  const cellOf = (fp: Footprint) => model.cells.get(`${fp.region}/${fp.date}`);
  const colourOf = (fp: Footprint) => {
    const c = cellOf(fp);
    const step = c?.changes ? changeStep(c.changes) : 0;
    return step > 0 ? (CHANGE_STEPS[step]?.colour as string) : STATE_COLOURS[c?.state ?? "current"];
  };
  const used = new Map<string, string>();
  for (const fp of model.footprints) {
    const c = cellOf(fp);
    const step = c?.changes ? changeStep(c.changes) : 0;
    used.set(colourOf(fp), step > 0 ? `changed: ${CHANGE_STEPS[step]?.label}` : (c?.state ?? "current"));
  }
  const legend = [...used]
    .map(([colour, label]) => `<span><i style="background:${colour}"></i>${esc(label)}</span>`)
    .join("");
  return {
    style: {
      fill: colourOf,
      title: (fp) => {
        const c = cellOf(fp);
        const rows = c?.rows !== undefined ? `, ${c.rows.toLocaleString("en-US")} rows` : "";
        return `${fp.region} ${fp.date}: ${c?.state ?? "current"}${rows}`;
      },
    },
    legend: `<div class="legend" id="map-legend">map: ${legend}<span>boxes below the map: regions far from the rest, each at its own scale</span></div>`,
  };
}

/** One self-contained HTML page: inline CSS and SVG, no script, nothing fetched when it is opened. */
export function renderReport(model: ReportModel): string {
  const map = mapStyle(model);
  const counts = new Map<CellState, number>();
  for (const c of model.cells.values()) counts.set(c.state, (counts.get(c.state) ?? 0) + 1);
  const legend = (Object.keys(STATE_COLOURS) as CellState[])
    .map((s) => `<span><i class="s-${s}"></i>${s} (${counts.get(s) ?? 0})</span>`)
    .join("");
  // Keyed datasets: a stripe under each cell says how much of it changed (hover for the counts).
  const keyed = [...model.cells.values()].some((c) => c.changes);
  const changeLegend = keyed
    ? `<div class="legend">row-level change: ${CHANGE_STEPS.slice(1)
        .map((s, i) => `<span><i class="c-${i + 1}"></i>${s.label}</span>`)
        .join("")}</div>`
    : "";
  const showEvery = Math.max(1, Math.ceil(model.dates.length / 40));
  const heads = model.dates.map((d, i) => `<div class="head">${i % showEvery === 0 ? d : ""}</div>`).join("");
  const rows = model.regions
    .map((region) => {
      const cells = model.dates.map((date) => model.cells.get(`${region}/${date}`));
      const grid = cells
        .map((c, i) => {
          const date = model.dates[i] as string;
          const state = c?.state ?? "never-built";
          const detail =
            c?.rows !== undefined ? `, ${c.rows.toLocaleString("en-US")} rows, promoted ${c.promotedAt ?? "?"}` : "";
          const ch = c?.changes;
          const changes = ch
            ? `; changes: ${ch.added} added, ${ch.removed} removed, ${ch.geometry_changed} geometry, ${ch.attributes_changed} attributes, ${ch.unchanged} unchanged`
            : "";
          const stripe = ch ? `<i class="chg c-${changeStep(ch)}"></i>` : "";
          const refused = c?.refused ? `; last run refused ${c.refused.at}: ${c.refused.message}` : "";
          return `<div class="cell s-${state}" data-region="${esc(region)}" data-date="${date}" data-state="${state}"${ch ? ` data-change-step="${changeStep(ch)}"` : ""} title="${esc(`${region} ${date}: ${state}${detail}${changes}${refused}`)}">${stripe}</div>`;
        })
        .join("");
      const live = (c: (typeof cells)[number], v: number | undefined) =>
        c && (c.state === "current" || c.state === "overridden" || c.state === "refused") ? v : undefined;
      const trend = `<div class="trend">${sparkline(
        cells.map((c) => live(c, c?.rows)),
        `${region} rows`,
      )}</div><div class="trend">${sparkline(
        cells.map((c) => live(c, c?.areaM2 === undefined ? undefined : c.areaM2 / 1e6)),
        `${region} area km²`,
      )}</div>`;
      return `<div class="name">${esc(region)}</div>${grid}${trend}`;
    })
    .join("");
  const problems = model.problems.length
    ? `<h2>Manifests that could not be read</h2><ul>${model.problems.map((p) => `<li>${esc(p.key)}: ${esc(p.message)}</li>`).join("")}</ul>`
    : "";
  const refusedCells = [...model.cells.values()].filter((c) => c.refused);
  const refusals = refusedCells.length
    ? `<h2>Refused runs (the partition keeps its previous version)</h2><ul id="refused">${refusedCells
        .map(
          (c) => `<li>${esc(c.region)} ${c.date} (${esc(c.refused?.at ?? "")}): ${esc(c.refused?.message ?? "")}</li>`,
        )
        .join("")}</ul>`
    : "";
  const droppedCells = [...model.cells.values()].filter((c) => c.dropped && c.state !== "retired");
  const drops = droppedCells.length
    ? `<h2>Rows the task dropped (recorded in each manifest entry)</h2><ul id="dropped">${droppedCells
        .map(
          (c) =>
            `<li>${esc(c.region)} ${c.date}: ${c.dropped?.rows ?? 0} row${(c.dropped?.rows ?? 0) > 1 ? "s" : ""} — ${esc((c.dropped?.why ?? []).join("; "))}</li>`,
        )
        .join("")}</ul>`
    : "";
  const span = model.dates.length ? `${model.dates[0]} – ${model.dates[model.dates.length - 1]}` : "";
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">
<title>${esc(model.dataset)} — georefresh report</title><style>${CSS}</style></head>
<body>
<h1>${esc(model.dataset)}</h1>
<p class="sub">${model.regions.length} regions × ${model.dates.length} logical dates (${span}), as the manifests say</p>
<h2>Current footprints (latest date of each region; equal-area)</h2>
${mapSvg(model.footprints, map.style)}
${model.footprints.length ? map.legend : ""}
<h2>Partitions, with rows and area over logical dates</h2>
<div class="legend">${legend}</div>
${changeLegend}
<div class="grid" id="status" style="grid-template-columns:max-content repeat(${model.dates.length},minmax(4px,14px)) max-content max-content"><div></div>${heads}<div class="head trend-head">rows</div><div class="head trend-head">area (km²)</div>${rows}</div>
${refusals}
${drops}
${problems}
</body></html>
`;
}
