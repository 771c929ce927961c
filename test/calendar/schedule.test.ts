/** `--to scheduled`: the logical date from the scheduler's record of when a run was due, never the wall clock. */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { logicalDateAt, scheduledInstant } from "../../src/calendar/schedule.js";
import { runCliHere as runCli } from "../helpers/cli.js";

// The Job a CronJob creates for a run due at this instant is named `<cronjob>-<minutes since the epoch>`.
const jobName = (iso: string) => `georefresh-nightly-${Date.parse(iso) / 60_000}`;

describe("the scheduled logical date", () => {
  it("reads a CronJob's Job name, an ISO instant or epoch seconds, and refuses anything else", () => {
    expect(scheduledInstant({ GEOREFRESH_JOB_NAME: jobName("2026-12-02T02:00:00Z") }).toISOString()).toBe(
      "2026-12-02T02:00:00.000Z",
    );
    expect(scheduledInstant({ GEOREFRESH_SCHEDULED_TIME: "2026-12-02T03:00:00+01:00" }).toISOString()).toBe(
      "2026-12-02T02:00:00.000Z",
    );
    expect(scheduledInstant({ GEOREFRESH_SCHEDULED_TIME: "1796176800" }).toISOString()).toBe(
      "2026-12-02T02:00:00.000Z",
    );
    // The explicit time wins over the Job name.
    expect(
      scheduledInstant({
        GEOREFRESH_SCHEDULED_TIME: "2026-01-01T00:00:00Z",
        GEOREFRESH_JOB_NAME: jobName("2026-12-02T02:00:00Z"),
      }).toISOString(),
    ).toBe("2026-01-01T00:00:00.000Z");
    expect(() => scheduledInstant({ GEOREFRESH_JOB_NAME: "georefresh-manual-run" })).toThrow(
      /does not end in a CronJob's scheduled minute.*pass --to DATE/,
    );
    expect(() => scheduledInstant({ GEOREFRESH_SCHEDULED_TIME: "2026-12-02T02:00:00" })).toThrow(
      /not an ISO 8601 instant with an offset/,
    ); // no zone: ambiguous
    expect(() => scheduledInstant({})).toThrow(/found no scheduled time/);
  });

  it("is the scheduled day in the scheduler's time zone, lag days earlier, whenever the run starts", () => {
    const due = new Date("2026-12-02T02:00:00Z");
    expect(logicalDateAt(due, "UTC", 1)).toBe("2026-12-01");
    expect(logicalDateAt(due, "UTC", 0)).toBe("2026-12-02");
    expect(logicalDateAt(due, "America/Chicago", 1)).toBe("2026-11-30"); // still 1 December, 20:00, in Chicago
    expect(logicalDateAt(due, "Asia/Tokyo", 1)).toBe("2026-12-01");
    expect(logicalDateAt(new Date("2026-03-01T00:30:00Z"), "Europe/Berlin", 1)).toBe("2026-02-28"); // across a month end
    // The night the clocks go back in Berlin (25 October 2026): 02:30 local happens twice, the date once.
    expect(logicalDateAt(new Date("2026-10-25T00:30:00Z"), "Europe/Berlin", 1)).toBe("2026-10-24");
    expect(logicalDateAt(new Date("2026-10-25T01:30:00Z"), "Europe/Berlin", 1)).toBe("2026-10-24");
    expect(() => logicalDateAt(due, "Mars/Olympus", 1)).toThrow(/not an IANA time zone/);
  });

  it("the CLI: --to scheduled in a CronJob pod picks the scheduled night's window, and exit 2 without one", async () => {
    const store = mkdtempSync(join(tmpdir(), "georefresh-sched-"));
    try {
      const args = [
        "finalize",
        "--dataset",
        "us-counties",
        "--to",
        "scheduled",
        "--trailing",
        "2",
        "--regions",
        "CA",
        "--store",
        store,
        "--json",
      ];
      // us-counties is monthly: due 1 December 02:00 UTC, lag 1 → 30 November → the months of October and November.
      const r = await runCli(args, { GEOREFRESH_JOB_NAME: jobName("2026-12-01T02:00:00Z") });
      expect(r.code, r.stderr).toBe(1);
      expect(
        (JSON.parse(r.stdout) as { incomplete: { partition: { date: string } }[] }).incomplete.map(
          (p) => p.partition.date,
        ),
      ).toEqual(["2026-10-01", "2026-11-01"]);
      const none = await runCli(args, { GEOREFRESH_JOB_NAME: "", GEOREFRESH_SCHEDULED_TIME: "" });
      expect(none.code).toBe(2);
      expect(none.stdout).toMatch(/found no scheduled time/);
    } finally {
      rmSync(store, { recursive: true, force: true });
    }
  });
});
