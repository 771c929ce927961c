import type { FooterFacts } from "./footer-facts.js";
import type { ColumnPlan, Report } from "./validate-metadata.js";

/**
 * Best-practice rules, after the GeoParquet distribution guide and geoparquet-io's `check`: findings here are
 * warnings (exit 0 unless --strict), each under a stable name (docs/validate.md).
 */

export interface PracticeOptions {
  /** Row-group advice applies to files at least this big (bytes); default 64 MiB. */
  rowGroupAdviceBytes?: number;
}

const ROW_GROUP_RANGE = [50_000, 150_000] as const;
const SPATIAL_ORDER_MIN_ROWS = 100;
const SPATIAL_ORDER_RATIO = 0.5;

export function checkPractice(
  facts: FooterFacts,
  plans: ColumnPlan[],
  primary: string,
  fileBytes: number,
  options: PracticeOptions,
  report: Report,
): void {
  const warn = (rule: string, message: string, column?: string) =>
    report({ rule, severity: "warning", message, ...(column ? { column } : {}) });

  const codecs = new Map<string, string>();
  for (const rg of facts.rowGroups)
    for (const c of rg.columns) if (c.codec !== "ZSTD") codecs.set(c.path.join("."), c.codec);
  if (codecs.size)
    warn(
      "compression",
      `${codecs.size} column(s) not zstd-compressed (${[...codecs]
        .slice(0, 5)
        .map(([p, c]) => `${p}: ${c}`)
        .join(", ")}${codecs.size > 5 ? ", …" : ""}); zstd is the recommended codec`,
    );

  const advice = options.rowGroupAdviceBytes ?? 64 * 2 ** 20;
  if (fileBytes >= advice && facts.rowGroups.length > 1) {
    const [lo, hi] = ROW_GROUP_RANGE;
    const off = facts.rowGroups.slice(0, -1).filter((rg) => rg.rows < lo || rg.rows > hi);
    if (off.length)
      warn(
        "row-group-size",
        `${off.length} of ${facts.rowGroups.length} row groups hold fewer than ${lo} or more than ${hi} rows (e.g. ${off[0]?.rows}); aim for ~${lo / 1000}k–${hi / 1000}k rows in files this size`,
      );
  }

  const primaryPlan = plans.find((p) => p.name === primary);
  const nativeStats = facts.rowGroups.some((rg) =>
    rg.columns.some((c) => c.path.length === 1 && c.path[0] === primary && c.geo),
  );
  if (primaryPlan && !primaryPlan.meta.covering && !nativeStats)
    warn(
      "no-covering",
      `'${primary}' has neither a bbox covering column nor native geospatial statistics; readers cannot skip row groups by location`,
      primary,
    );

  for (const plan of plans) {
    const paths = plan.meta.covering?.bbox;
    if (!paths) continue;
    const missing = new Set<string>();
    for (const rg of facts.rowGroups)
      for (const p of Object.values(paths)) {
        const chunk = rg.columns.find((c) => c.path.length === 2 && c.path[0] === p[0] && c.path[1] === p[1]);
        if (!chunk?.minMax) missing.add(`${p[0]}.${p[1]}`);
      }
    if (missing.size)
      warn(
        "covering-statistics",
        `covering column(s) ${[...missing].join(", ")} lack min/max statistics in some row groups; the covering cannot prune there`,
        plan.name,
      );
  }
}

/**
 * Mean distance between consecutive rows' bbox centres over the mean distance between pseudo-random pairs
 * (a fixed-seed generator, so the verdict is reproducible). Near 0: spatially ordered; near 1: random.
 */
export function spatialOrderRatio(centres: Float64Array): number | undefined {
  const n = centres.length / 2;
  if (n < SPATIAL_ORDER_MIN_ROWS) return undefined;
  const dist = (a: number, b: number) =>
    Math.hypot(
      (centres[2 * a] as number) - (centres[2 * b] as number),
      (centres[2 * a + 1] as number) - (centres[2 * b + 1] as number),
    );
  const samples = Math.min(n - 1, 10_000);
  const stride = (n - 1) / samples;
  let consecutive = 0;
  for (let k = 0; k < samples; k++) {
    const i = Math.floor(k * stride);
    consecutive += dist(i, i + 1);
  }
  let seed = 42;
  const next = () => {
    seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0;
    return seed % n;
  };
  let random = 0;
  for (let k = 0; k < samples; k++) random += dist(next(), next());
  return random > 0 ? consecutive / random : undefined;
}

export function checkSpatialOrder(centres: Float64Array, column: string, report: Report): void {
  const ratio = spatialOrderRatio(centres);
  if (ratio !== undefined && ratio >= SPATIAL_ORDER_RATIO)
    report({
      rule: "spatial-order",
      severity: "warning",
      column,
      message: `rows are not in spatial order (consecutive/random distance ratio ${ratio.toFixed(2)} ≥ ${SPATIAL_ORDER_RATIO}); sort them (e.g. Hilbert) so row groups cover compact areas`,
    });
}
