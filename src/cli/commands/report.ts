import type { Command } from "commander";
import { action } from "../action.js";
import { DESCRIPTIONS } from "../descriptions.js";
import { renderReport } from "../../report/html.js";
import { reportModel } from "../../report/model.js";
import { loadStore } from "../../store/backends.js";
import { CONFIG_HELP, datasetOf, openConfig, UsageError } from "../context.js";
import type { CommonOptions } from "../context.js";
import { EXIT } from "../exit-codes.js";
import { err, out, printJson } from "../output.js";
import { writeOutputFile } from "../output-file.js";

type Opts = CommonOptions & { html?: string };

const HELP = `
One HTML file with everything inline (no script, nothing fetched when opened): a grid of regions × logical dates
coloured by state (current, overridden plausibility, retired, never built; hover for rows and promotion time), a
rows and area trend per region, and a map of each region's latest current footprints with its bbox.

Exit codes: 0 written; 1 written, but some manifests could not be read (listed in the report and on stderr);
2 usage; 3 the store cannot be used; 75 the store was unreachable, run again later.`;

export function registerReport(program: Command): void {
  program
    .command("report")
    .description(DESCRIPTIONS.report)
    .argument("<dataset>")
    .requiredOption("--html <file>", "where to write the report")
    .option("--config <path>", CONFIG_HELP, "georefresh.config.json")
    .option("--store <url>", "override the config's store")
    .option("--json", "print the counts as JSON")
    .addHelpText("after", HELP)
    .action(
      action(async (name: string, opts: Opts) => {
        if (!opts.html) throw new UsageError("give --html FILE");
        const config = await openConfig(opts);
        const { task } = datasetOf(config, name);
        const store = await loadStore(config.store);
        try {
          const model = await reportModel(store, name, { cadence: task.cadence });
          await writeOutputFile("--html", opts.html, renderReport(model));
          for (const p of model.problems) err(`georefresh: skipped ${p.key}: ${p.message}\n`);
          if (opts.json)
            printJson({
              ok: !model.problems.length,
              html: opts.html,
              regions: model.regions.length,
              dates: model.dates.length,
              cells: model.cells.size,
              problems: model.problems.length,
            });
          else
            out(
              `wrote ${opts.html}: ${name}, ${count(model.regions.length, "region")} × ${count(model.dates.length, "date")}${model.problems.length ? `, ${model.problems.length} skipped` : ""}\n`,
            );
          return model.problems.length ? EXIT.failed : EXIT.ok;
        } finally {
          await store.close();
        }
      }),
    );
}

const count = (n: number, what: string) => `${n} ${what}${n === 1 ? "" : "s"}`;
