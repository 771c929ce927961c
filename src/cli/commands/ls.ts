import type { Command } from "commander";
import { action } from "../action.js";
import { DESCRIPTIONS } from "../descriptions.js";
import { bytesSince } from "../../manifest/bytes-since.js";
import { refusalsOf, stillRefused } from "../../manifest/refusal.js";
import type { Manifest } from "../../manifest/types.js";
import { err, out, printJson } from "../output.js";
import { common, reportProblems, withDataset } from "../reading.js";
import type { Opts } from "../reading.js";

/** `ls`: a dataset's partitions, a row each (region, date, status, rows, key, when the bytes last changed). */
export function registerLs(program: Command): void {
  common(
    program
      .command("ls")
      .description(DESCRIPTIONS.ls)
      .argument("<dataset>")
      .addHelpText(
        "after",
        "\nchanged_at is when the partition's rows last changed: a rekey (the same bytes under a new key) or new bytes\nwhose changelog counts no changed row do not move it. --json also gives promoted_at, when the current version\nwas promoted, and the current version's change counts.",
      ),
  ).action(
    action((name: string, opts: Opts) =>
      withDataset(name, opts, async (ds) => {
        const scanned = await ds.scan();
        const parts = scanned.partitions.sort((a, b) =>
          a.region === b.region ? (a.date < b.date ? -1 : 1) : a.region < b.region ? -1 : 1,
        );
        // The last refused run of a partition, while its manifest still holds what it held then (issue 27 item 5).
        const refusals = await refusalsOf(ds.store, ds.name);
        const refusedOf = (region: string, date: string, m: Manifest | undefined) => {
          const r = refusals.get(`${region}/${date}`);
          refusals.delete(`${region}/${date}`);
          return r && stillRefused(r, m) ? { at: r.at, key: r.key, run_id: r.run_id, message: r.message } : null;
        };
        const rows = parts.map((p) => {
          const since = bytesSince(p.manifest);
          return {
            region: p.region,
            date: p.date,
            // rekeyed: current, with the same bytes as the version before it under a new key (no row changed).
            status: p.manifest.retired ? "retired" : since ? (since.rekeyed ? "rekeyed" : "current") : "empty",
            rows: p.manifest.current?.rows ?? 0,
            key: p.manifest.current?.key ?? null,
            promoted_at: p.manifest.current?.promoted_at ?? null,
            changed_at: since?.changedAt ?? null,
            changes: p.manifest.current?.changes?.counts ?? null,
            refused: refusedOf(p.region, p.date, p.manifest),
          };
        });
        // Partitions refused before any version was promoted have no manifest: listed from their refusal alone.
        for (const r of refusals.values())
          rows.push({
            region: r.region,
            date: r.logical_date,
            status: "empty",
            rows: 0,
            key: null,
            promoted_at: null,
            changed_at: null,
            changes: null,
            refused: refusedOf(r.region, r.logical_date, undefined),
          });
        rows.sort((a, b) => (a.region === b.region ? (a.date < b.date ? -1 : 1) : a.region < b.region ? -1 : 1));
        if (opts.json) printJson(rows);
        else {
          // A header, so that 29 reads as rows (issue 27 item 8); --json is the form for scripts. changed_at is
          // when the bytes last changed: a rekey moves promoted_at, not the data.
          if (rows.length) out("region\tdate\tstatus\trows\tkey\tchanged_at\n");
          for (const r of rows)
            out(
              `${r.region}\t${r.date}\t${r.status}${r.refused ? ", refused" : ""}\t${r.rows}\t${r.key ?? "-"}\t${r.changed_at ?? "-"}\n`,
            );
          for (const r of rows.filter((x) => x.refused))
            err(
              `georefresh: ${r.region} ${r.date}: the last run (${r.refused?.at}) was refused, so ${r.key ? "the version above is still current" : "nothing is published"}: ${r.refused?.message}\n`,
            );
        }
        return reportProblems(scanned.problems);
      }),
    ),
  );
}
