import { GeorefreshError } from "../errors.js";
/**
 * The logical date of a scheduled run comes from the scheduler's own record of when the run was due, never from
 * the wall clock, so a run that starts late, is retried the next morning, or fires twice still refreshes the
 * same dates (docs/scale-out.md, "Nightly runs").
 */
export class ScheduleError extends GeorefreshError {}

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
    const at = /^\d+$/.test(given)
      ? new Date(Number(given) * 1000)
      : /(Z|[+-]\d{2}:?\d{2})$/i.test(given)
        ? new Date(given)
        : new Date(Number.NaN);
    if (Number.isNaN(at.getTime()))
      throw new ScheduleError(
        `GEOREFRESH_SCHEDULED_TIME=${JSON.stringify(given)} is not an ISO 8601 instant with an offset (2026-12-01T02:00:00Z) or epoch seconds`,
      );
    return at;
  }
  const job = env.GEOREFRESH_JOB_NAME;
  if (job) {
    const minutes = /-(\d{7,})$/.exec(job)?.[1];
    if (!minutes)
      throw new ScheduleError(
        `GEOREFRESH_JOB_NAME=${JSON.stringify(job)} does not end in a CronJob's scheduled minute (<cronjob>-<minutes since the epoch>); a Job started by hand has none: pass --to DATE`,
      );
    return new Date(Number(minutes) * 60_000);
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
