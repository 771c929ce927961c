/** A YYYY-MM-DD that names a real day: 2026-02-30 is refused, never rolled over into March. */
export function isCalendarDate(text: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(text)) return false;
  const d = new Date(`${text}T00:00:00Z`);
  return !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === text;
}

function calendarDate(text: string, what: string): Date {
  if (!isCalendarDate(text)) throw new RangeError(`${what} ${text} is not a calendar date YYYY-MM-DD`);
  return new Date(`${text}T00:00:00Z`);
}

/**
 * The first of the last `n` logical dates on or before `to`: a nightly run's window that re-checks recent dates
 * (cheaply: settled ones cost a manifest GET and an existence check each).
 */
export function trailingFrom(to: string, n: number, cadence: "daily" | "monthly"): string {
  const end = calendarDate(to, "--to");
  if (!Number.isSafeInteger(n) || n < 1) throw new RangeError(`--trailing ${n}: expected a whole number ≥ 1`);
  const from =
    cadence === "daily"
      ? new Date(Date.UTC(end.getUTCFullYear(), end.getUTCMonth(), end.getUTCDate() - (n - 1)))
      : new Date(Date.UTC(end.getUTCFullYear(), end.getUTCMonth() - (n - 1), 1));
  const first = from.toISOString().slice(0, 10);
  if (!isCalendarDate(first)) throw new RangeError(`--trailing ${n} from --to ${to} reaches before the year 1`);
  return first;
}

/** Logical dates between two dates, inclusive, for a cadence. Pure date arithmetic in UTC: no wall clock. */
export function logicalDates(from: string, to: string, cadence: "daily" | "monthly"): string[] {
  const start = calendarDate(from, "--from");
  const end = calendarDate(to, "--to");
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

const INSTANT = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(\.\d{1,9})?)?(Z|([+-])(\d{2}):(\d{2}))$/i;

/**
 * An ISO 8601 / RFC 3339 instant with its offset ("2026-11-24T18:00:00Z", "…+01:00"), read strictly: every
 * field in range (2026-02-30 is no day, never 2 March), the offset required (a time without one means a different
 * instant on every machine). Undefined when the text is not one; `Date.parse`'s guesses (RFC 1123, "0") are not.
 */
export function parseInstant(text: string): Date | undefined {
  const m = INSTANT.exec(text);
  if (!m) return undefined;
  const [, mo, d, h, mi, s] = [1, 2, 3, 4, 5, 6].map((i) => Number(m[i] ?? 0)) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const [sign, oh, om] = [m[9], Number(m[10] ?? 0), Number(m[11] ?? 0)];
  if (!isCalendarDate(`${m[1]}-${m[2]}-${m[3]}`) || h > 23 || mi > 59 || s > 59 || oh > 23 || om > 59) return undefined;
  const ms = Math.floor(Number(m[7] ?? 0) * 1000);
  const offset = (sign === "-" ? -1 : 1) * (oh * 60 + om) * 60_000;
  const two = (n: number) => String(n).padStart(2, "0");
  const utc = Date.parse(`${m[1]}-${two(mo)}-${two(d)}T${two(h)}:${two(mi)}:${two(s)}.${String(ms).padStart(3, "0")}Z`);
  return new Date(utc - offset);
}
