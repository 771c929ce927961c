import type { PartitionPlan } from "../orchestrate/dry-run.js";

/**
 * Partitions that are not settled, for people: one line per distinct status and reason, with how many partitions,
 * which regions (the first six) and the span of dates. Dry runs and finalize print the same lines.
 */
export function groupPlans(plans: readonly PartitionPlan[]): string[] {
  const groups = new Map<string, { regions: Set<string>; dates: string[] }>();
  for (const p of plans) {
    if (p.status === "unchanged") continue;
    const label = `${p.status}${p.reasons.length ? `: ${p.reasons.join("; ")}` : ""}`;
    const g = groups.get(label) ?? { regions: new Set<string>(), dates: [] };
    g.regions.add(p.partition.region);
    g.dates.push(p.partition.date);
    groups.set(label, g);
  }
  return [...groups].map(([label, g]) => {
    const regions = [...g.regions].sort();
    const dates = g.dates.sort();
    const where = `${regions.slice(0, 6).join(", ")}${regions.length > 6 ? ` and ${regions.length - 6} more` : ""}; ${dates[0]}${dates.length > 1 && dates.at(-1) !== dates[0] ? ` … ${dates.at(-1)}` : ""}`;
    return `  ${g.dates.length} × ${label} (${where})`;
  });
}
