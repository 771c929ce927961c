/** Logical dates between two dates, inclusive, for a cadence. Pure date arithmetic in UTC: no wall clock. */
export function logicalDates(from: string, to: string, cadence: "daily" | "monthly"): string[] {
  const start = new Date(`${from}T00:00:00Z`);
  const end = new Date(`${to}T00:00:00Z`);
  if (Number.isNaN(start.getTime()) || Number.isNaN(end.getTime())) throw new RangeError(`dates must be YYYY-MM-DD (got ${from}, ${to})`);
  if (start > end) throw new RangeError(`--from ${from} is after --to ${to}`);
  const out: string[] = [];
  if (cadence === "daily") {
    for (const d = new Date(start); d <= end; d.setUTCDate(d.getUTCDate() + 1)) out.push(d.toISOString().slice(0, 10));
  } else {
    const d = new Date(Date.UTC(start.getUTCFullYear(), start.getUTCMonth() + (start.getUTCDate() === 1 ? 0 : 1), 1));
    for (; d <= end; d.setUTCMonth(d.getUTCMonth() + 1)) out.push(d.toISOString().slice(0, 10));
  }
  return out;
}
