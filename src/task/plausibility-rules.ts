/**
 * A task's plausibility rules, checked when it is declared: a misspelt rule would otherwise be a check silently
 * not made. The extent pins where each region's data lies (docs/plausibility.md).
 */
export type LonLatBox = [number, number, number, number];

export interface PlausibilityRules {
  /** How many earlier versions of the region the row-count median looks at. Default 7. */
  window?: number;
  /** Largest accepted relative change of rows vs that median. Default 0.5 (±50%). */
  rowTolerance?: number;
  /** Largest accepted relative change of total equal-area area vs the previous version. Default 0.2. */
  areaTolerance?: number;
  /** A partition must have at least this many rows. Default 1. */
  minRows?: number;
  /**
   * Where each region's data lies, as a lon/lat box [west, south, east, north] in degrees (WGS 84 / OGC:CRS84),
   * by region name; "*" for every region not named. A version whose data's box is not inside its region's is
   * refused: it catches a declared CRS of the right kind but the wrong zone (State Plane North read as Central),
   * which no reading of the file can tell, on the first version as on every later one.
   */
  extent?: Record<string, LonLatBox>;
}

const NUMBERS = {
  window: "a whole number ≥ 1",
  rowTolerance: "a number ≥ 0",
  areaTolerance: "a number ≥ 0",
  minRows: "a whole number ≥ 0",
} as const;
const EXAMPLE = `{ "window": 7, "rowTolerance": 0.5, "areaTolerance": 0.2, "minRows": 1, "extent": { "weld": [-105.1, 39.9, -103.5, 41.1] } }`;

/** What is wrong with the rules, one line each (none when they are fine). */
export function plausibilityProblems(rules: unknown): string[] {
  if (rules === undefined) return [];
  if (typeof rules !== "object" || rules === null || Array.isArray(rules))
    return [`plausibility must be an object, e.g. ${EXAMPLE}`];
  const problems: string[] = [];
  for (const [name, value] of Object.entries(rules)) {
    if (name === "extent") problems.push(...extentProblems(value));
    else if (Object.hasOwn(NUMBERS, name)) {
      const whole = name === "window" || name === "minRows";
      const least = name === "window" ? 1 : 0;
      if (typeof value !== "number" || !Number.isFinite(value) || value < least || (whole && !Number.isInteger(value)))
        problems.push(
          `plausibility.${name} must be ${NUMBERS[name as keyof typeof NUMBERS]} (got ${JSON.stringify(value)})`,
        );
    } else
      problems.push(
        `plausibility has no rule ${JSON.stringify(name)}; the rules are ${[...Object.keys(NUMBERS), "extent"].join(", ")}`,
      );
  }
  return problems;
}

function extentProblems(extent: unknown): string[] {
  if (typeof extent !== "object" || extent === null || Array.isArray(extent))
    return [
      `plausibility.extent must map region names (or "*") to lon/lat boxes [west, south, east, north], e.g. { "weld": [-105.1, 39.9, -103.5, 41.1] }`,
    ];
  const problems: string[] = [];
  for (const [region, box] of Object.entries(extent)) {
    const where = `plausibility.extent[${JSON.stringify(region)}]`;
    if (!Array.isArray(box) || box.length !== 4 || box.some((v) => typeof v !== "number" || !Number.isFinite(v))) {
      problems.push(`${where} must be [west, south, east, north] in degrees (got ${JSON.stringify(box)})`);
      continue;
    }
    const [w, s, e, n] = box as LonLatBox;
    if (w < -180 || e > 180 || s < -90 || n > 90)
      problems.push(
        `${where} ${JSON.stringify(box)} is not lon/lat degrees (lon −180…180, lat −90…90): give it in WGS 84`,
      );
    else if (w > e)
      problems.push(
        `${where} ${JSON.stringify(box)} has west > east (across the antimeridian), which is not supported: give [-180, ${s}, 180, ${n}] or the region's box on one side`,
      );
    else if (s > n)
      problems.push(`${where} ${JSON.stringify(box)} has south > north: the order is [west, south, east, north]`);
  }
  return problems;
}

/** The box a region's data must lie in, when the rules pin one. */
export function extentOf(rules: PlausibilityRules | undefined, region: string): LonLatBox | undefined {
  const extent = rules?.extent;
  if (!extent) return undefined;
  if (Object.hasOwn(extent, region)) return extent[region];
  return Object.hasOwn(extent, "*") ? extent["*"] : undefined;
}
