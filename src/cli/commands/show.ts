import type { Command } from "commander";
import { action } from "../action.js";
import { DESCRIPTIONS } from "../descriptions.js";
import { refusalOf, stillRefused } from "../../manifest/refusal.js";
import { err, printJson } from "../output.js";
import { common, latestDate, viewOf, viewOptions, which, withDataset } from "../reading.js";
import type { Opts } from "../reading.js";

/** `show`: one partition's manifest (or its entry in a snapshot or at an instant), and its last refusal. */
export function registerShow(program: Command): void {
  viewOptions(
    latestDate(
      common(
        program
          .command("show")
          .description(DESCRIPTIONS.show)
          .argument("<dataset>")
          .requiredOption("--region <region>", "the region")
          .option("--date <date>", "logical date"),
      ),
      "the region's latest logical date",
    ).option("--history", "include earlier versions (the current manifest only)"),
  ).action(
    action((name: string, opts: Opts) =>
      withDataset(name, opts, async (ds) => {
        if (opts.snapshot || opts.asOf) {
          const view = await viewOf(ds, opts);
          const p = view.find(opts.region as string, which(opts));
          printJson({ dataset: name, view: view.source, region: p.region, logical_date: p.date, entry: p.entry });
          return;
        }
        const m = await ds.manifest(opts.region as string, which(opts));
        const history = opts.history ? m.history : `${m.history.length} earlier versions (--history to show)`;
        const r = await refusalOf(ds.store, {
          dataset: name,
          region: m.partition.region,
          date: m.partition.logical_date,
        });
        const refused =
          r && stillRefused(r, m) ? { at: r.at, key: r.key, run_id: r.run_id, message: r.message } : undefined;
        printJson({ ...m, history, ...(refused ? { last_refusal: refused } : {}) });
        if (refused)
          err(
            `georefresh: the last run (${refused.at}) was refused, so the version above is still current: ${refused.message}\n`,
          );
      }),
    ),
  );
}
