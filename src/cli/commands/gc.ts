import type { Command } from "commander";
import { DESCRIPTIONS } from "../descriptions.js";
import { collectGarbage, parseAge, TEMP_FLOOR_MS } from "../../gc/gc.js";
import { sweepLocalTemp } from "../../gc/local-temp.js";
import { loadStore } from "../../store/backends.js";
import { CONFIG_HELP, openConfig, UsageError, wholeNumber } from "../context.js";
import type { CommonOptions } from "../context.js";
import { EXIT } from "../exit-codes.js";
import { action } from "../action.js";
import { err, out, printJson } from "../output.js";
import { stepsProgress } from "../progress.js";

export function registerGc(program: Command): void {
  program
    .command("gc")
    .description(DESCRIPTIONS.gc)
    .option(
      "--older-than <age>",
      "only what is older than this (s, m, h, d; at least 1h without --override-floor)",
      "24h",
    )
    .option(
      "--override-floor",
      'accept --older-than below 1h (artifacts and events stay protected; see README "Safety")',
    )
    .option("--apply", "delete; without it gc only lists")
    .option("--artifacts", "also remove artifacts that no manifest references")
    .option(
      "--memo",
      "also remove memoized service responses older than --older-than (a later run calls the service again)",
    )
    .option("--keep <n>", "with --artifacts: keep the newest n unreferenced artifacts per partition", wholeNumber(0), 0)
    .option("--config <path>", CONFIG_HELP, "georefresh.config.json")
    .option("--store <url>", "override the config's store")
    .option("--json", "one JSON report")
    .addHelpText(
      "after",
      "\nExit codes: 0 done (or nothing to do), 1 a dataset was skipped (a manifest or outbox record could not be read:\nnothing of it was deleted), 2 usage, 3 store.",
    )
    .action(
      action(
        async (
          opts: CommonOptions & {
            olderThan: string;
            overrideFloor?: boolean;
            apply?: boolean;
            artifacts?: boolean;
            memo?: boolean;
            keep: number;
          },
        ) => {
          let olderThanMs: number;
          try {
            olderThanMs = parseAge(opts.olderThan);
          } catch (error) {
            throw new UsageError((error as Error).message);
          }
          const keep = opts.keep;
          const config = await openConfig(opts);
          const store = await loadStore(config.store);
          try {
            const report = await collectGarbage(store, {
              olderThanMs,
              overrideFloor: Boolean(opts.overrideFloor),
              apply: Boolean(opts.apply),
              memo: Boolean(opts.memo),
              ...(opts.artifacts ? { artifacts: { keep } } : {}),
              onProgress: stepsProgress("gc", Boolean(opts.json), false),
            });
            // This machine's TMPDIR too: staged artifacts and input copies of killed runs (never a live run's).
            const local = await sweepLocalTemp({
              olderThanMs: Math.max(olderThanMs, TEMP_FLOOR_MS),
              apply: Boolean(opts.apply),
            });
            if (opts.json) printJson({ ...report, local });
            else {
              const verb = report.applied ? "removed" : "would remove";
              for (const [what, list] of Object.entries({
                temp: report.temp,
                outbox: report.outbox,
                artifacts: report.artifacts,
                uploads: report.uploads,
                memo: report.memo,
                "local temp files (TMPDIR)": local,
              })) {
                if (list.length) out(`${verb} ${list.length} ${what}:\n${list.map((k) => `  ${k}\n`).join("")}`);
              }
              const found =
                report.temp.length +
                report.outbox.length +
                report.artifacts.length +
                report.uploads.length +
                report.memo.length +
                local.length;
              // One line even when there is nothing to do (issue 27 item 7).
              if (found === 0) out("nothing to remove\n");
              else if (!report.applied) out("(dry run: add --apply to delete)\n");
              for (const s of report.spared) out(`spared ${s.key}: ${s.reason}\n`);
            }
            for (const s of report.skipped)
              err(`georefresh: gc skipped dataset ${s.dataset} (nothing of it was deleted): ${s.reason}\n`);
            return report.skipped.length ? EXIT.failed : EXIT.ok;
          } finally {
            await store.close();
          }
        },
      ),
    );
}
