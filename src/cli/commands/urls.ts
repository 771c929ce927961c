import type { Command } from "commander";
import { action } from "../action.js";
import { DESCRIPTIONS } from "../descriptions.js";
import { err, out, printJson } from "../output.js";
import {
  common,
  latestDate,
  reportProblems,
  selectionOf,
  selectionOptions,
  selectionShown,
  viewOf,
  viewOptions,
  withDataset,
} from "../reading.js";
import type { Opts } from "../reading.js";

/** `urls`: the artifacts a view points at, for DuckDB and GeoPandas to read. */
export function registerUrls(program: Command): void {
  selectionOptions(
    viewOptions(
      latestDate(
        common(program.command("urls").description(DESCRIPTIONS.urls).argument("<dataset>")),
        "only the latest logical date of each region",
      ),
    ),
  ).action(
    action((name: string, opts: Opts) =>
      withDataset(name, opts, async (ds) => {
        const sel = { ...selectionOf(opts), latest: Boolean(opts.latest) };
        const view = await viewOf(ds, opts);
        const urls = view.urls(sel);
        if (opts.json) printJson(urls);
        else out(urls.map((u) => `${u}\n`).join(""));
        // An empty answer is said, not left for the reader to wonder about (issue 27 item 7).
        if (!urls.length && (opts.bbox || opts.from || opts.to || opts.asOf))
          err(`georefresh: no partition of ${name} matches ${selectionShown(opts)}\n`);
        return reportProblems(view.problems);
      }),
    ),
  );
}
