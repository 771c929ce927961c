import type { Command } from "commander";
import { action } from "../action.js";
import { DESCRIPTIONS } from "../descriptions.js";
import { deliverOutbox } from "../../outbox/deliver.js";
import { loadStore } from "../../store/backends.js";
import { CONFIG_HELP, openConfig, UsageError, wholeNumber } from "../context.js";
import type { CommonOptions } from "../context.js";
import { EXIT } from "../exit-codes.js";
import { err, out, printJson } from "../output.js";

export function registerDeliver(program: Command): void {
  program
    .command("deliver")
    .description(DESCRIPTIONS.deliver)
    .requiredOption("--webhook <url>", "http(s) URL that receives a POST per event")
    .option(
      "--secret <secret>",
      "HMAC-SHA256 key (better: GEOREFRESH_WEBHOOK_SECRET, which stays out of process lists)",
    )
    .option("--dataset <name>", "only this dataset's events")
    .option("--attempts <n>", "POST attempts per event in this run", wholeNumber(1), 5)
    .option("--config <path>", CONFIG_HELP, "georefresh.config.json")
    .option("--store <url>", "override the config's store")
    .option("--json", "one JSON report")
    .addHelpText(
      "after",
      "\nRedirects are never followed: a 3xx is a failure naming its Location (point --webhook at the final URL).\nuser:pass@ in the URL is sent as Basic auth and never printed or stored.\nExit codes: 0 nothing failed, 1 an event could not be delivered (it stays pending), 2 usage, 3 store.",
    )
    .action(
      action(async (opts: CommonOptions & { webhook: string; secret?: string; dataset?: string; attempts: number }) => {
        if (!/^https?:\/\//.test(opts.webhook) || !URL.canParse(opts.webhook))
          throw new UsageError(`--webhook ${opts.webhook}: expected an http:// or https:// URL`);
        const config = await openConfig(opts);
        const store = await loadStore(config.store);
        try {
          const report = await deliverOutbox(store, {
            webhook: opts.webhook,
            secret: opts.secret ?? process.env.GEOREFRESH_WEBHOOK_SECRET,
            dataset: opts.dataset,
            attempts: opts.attempts,
          });
          if (opts.json) printJson(report);
          else if (report.counts.failed || report.counts.sent) {
            const tally = Object.entries(report.counts)
              .filter(([, v]) => v)
              .map(([k, v]) => `${v} ${k}`)
              .join(", ");
            out(`outbox: ${tally}\n`);
            for (const e of report.events.filter((x) => x.status === "failed"))
              err(`georefresh: event ${e.id} not delivered: ${e.detail}\n`);
          }
          return report.counts.failed ? EXIT.failed : EXIT.ok;
        } finally {
          await store.close();
        }
      }),
    );
}
