import { GeorefreshError } from "../errors.js";
import type { ErrorCode } from "../errors.js";
import { parseInstant } from "./calendar.js";
/**
 * The logical date of a scheduled run comes from the scheduler's own record of when the run was due, never from
 * the wall clock, so a run that starts late, is retried the next morning, or fires twice still refreshes the
 * same dates (docs/scale-out.md, "Nightly runs").
 */
export class ScheduleError extends GeorefreshError {
  override readonly code: ErrorCode = "Schedule";
}

const inRange = (at: Date) => at.getTime() >= 0 && at.getUTCFullYear() <= 9999;
/** An environment value in a message: quoted, and cut when long. */
const shown = (text: string) =>
  text.length > 80 ? `${JSON.stringify(text.slice(0, 80))}… (${text.length} characters)` : JSON.stringify(text);

/**
 * When the scheduler meant this run to start:
 * - GEOREFRESH_SCHEDULED_TIME: an ISO 8601 instant with its offset (Argo `{{workflow.scheduledTime}}`, Airflow
 *   `{{ data_interval_end }}`), or whole seconds since the epoch;
 * - else GEOREFRESH_JOB_NAME, a Kubernetes CronJob's Job name: the controller names each Job
 *   `<cronjob>-<scheduled time in whole minutes since the epoch>`, and the pod sees it through the downward API
 *   (label `batch.kubernetes.io/job-name`).
 */
export function scheduledInstant(env: Record<string, string | undefined>): Date {
  const given = env.GEOREFRESH_SCHEDULED_TIME;
  if (given) {
    const at = /^\d{1,12}$/.test(given) ? new Date(Number(given) * 1000) : parseInstant(given);
    if (!at || !inRange(at))
      throw new ScheduleError(
        `GEOREFRESH_SCHEDULED_TIME=${shown(given)} is not an ISO 8601 instant with an offset (2026-12-01T02:00:00Z) or epoch seconds, between the years 1970 and 9999: fix the variable your scheduler sets`,
      );
    return at;
  }
  const job = env.GEOREFRESH_JOB_NAME;
  if (job) {
    const minutes = /-(\d{7,})$/.exec(job)?.[1];
    const at = minutes && minutes.length <= 12 ? new Date(Number(minutes) * 60_000) : undefined;
    if (!at || !inRange(at))
      throw new ScheduleError(
        `GEOREFRESH_JOB_NAME=${shown(job)} does not end in a CronJob's scheduled minute (<cronjob>-<minutes since the epoch>, a time between 1970 and 9999); a Job started by hand has none: pass --to DATE`,
      );
    return at;
  }
  throw new ScheduleError(
    "--to scheduled found no scheduled time: set GEOREFRESH_SCHEDULED_TIME, or GEOREFRESH_JOB_NAME from the pod's batch.kubernetes.io/job-name label (Kubernetes CronJob), or pass --to DATE",
  );
}

/**
 * The logical date of a run due at `instant`: its calendar date in `timeZone` (IANA, the scheduler's), `lagDays`
 * earlier. A nightly run due at 02:00 on 2 December with lag 1 refreshes 1 December, however late it starts.
 */
export function logicalDateAt(instant: Date, timeZone: string, lagDays: number): string {
  if (Number.isNaN(instant.getTime())) throw new ScheduleError("the scheduled time is not a valid instant");
  let parts: Intl.DateTimeFormatPart[];
  try {
    parts = new Intl.DateTimeFormat("en-CA", {
      timeZone,
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
    }).formatToParts(instant);
  } catch {
    throw new ScheduleError(
      `--time-zone ${timeZone}: not an IANA time zone (e.g. UTC, Europe/Berlin, America/Chicago)`,
    );
  }
  const part = (type: string) => Number(parts.find((p) => p.type === type)?.value);
  return new Date(Date.UTC(part("year"), part("month") - 1, part("day") - lagDays)).toISOString().slice(0, 10);
}
