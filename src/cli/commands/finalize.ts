import type { Command } from "commander";
import { action } from "../action.js";
import { DESCRIPTIONS } from "../descriptions.js";
import { loadStore } from "../../store/backends.js";
import { finalize } from "../../orchestrate/finalize.js";
import type { FinalizeSummary } from "../../orchestrate/finalize.js";
import { CONFIG_HELP, datasetOf, onlyOne, openConfig, wholeNumber } from "../context.js";
import type { CommonOptions } from "../context.js";
import { EXIT, worstFailureExit } from "../exit-codes.js";
import { out, printJson } from "../output.js";
import { groupPlans } from "../plan-report.js";
import { regionsOf, windowEnd, windowOptions, windowStart } from "../window.js";
import type { WindowOptions } from "../window.js";

interface FinalizeCliOptions extends CommonOptions, WindowOptions {
  dataset?: string;
  concurrency: number;
}

const HELP = `
Run it once after every shard of a backfill (Slurm --dependency=afterok, an Argo or Airflow fan-in step, a
Kubernetes Job after the Indexed Job). It checks that every planned partition is current at the key a run would
derive now, with its artifact present; only then does it retire regions that left the task's complete region list
(a shard never does), and commits the dataset snapshot (docs/snapshots.md). It writes nothing else, and running
it twice, or twice at once, ends the same.

Exit codes: 0 complete (and retired what had to be); 1 incomplete: the partitions listed are missing or stale (run
the backfill, or the shard, again); 2 usage; 3 the store cannot be used as set up; 75 the store was unreachable,
run again later.`;

function exitFor(summary: FinalizeSummary): number {
  return worstFailureExit(summary.incomplete, { setup: false }) ?? (summary.incomplete.length ? EXIT.failed : EXIT.ok);
}

function describe(s: FinalizeSummary): string {
  const n = (k: number) => `${k} partition${k === 1 ? "" : "s"}`;
  if (s.incomplete.length) {
    return (
      [
        `${s.dataset}: ${s.incomplete.length} of ${n(s.total)} not complete, nothing retired:`,
        ...groupPlans(s.incomplete),
      ].join("\n") + "\n"
    );
  }
  const retired =
    s.retirement === "applied" ? `; retired ${s.retired.length}` : `; no retirement: ${s.retirement.skipped}`;
  const snap = "id" in s.snapshot ? `; snapshot ${s.snapshot.id}` : `; no snapshot: ${s.snapshot.skipped}`;
  return `${s.dataset}: ${n(s.total)} complete${retired}${snap}\n`;
}

async function runFinalize(given: FinalizeCliOptions): Promise<number> {
  const config = await openConfig(given);
  const names = [...Object.keys(config.datasets), ...Object.keys(config.broken)];
  const cli = { ...given, dataset: given.dataset ?? onlyOne("--dataset", names, `datasets in ${config.path}`) };
  const { task, params } = datasetOf(config, cli.dataset);
  const to = windowEnd(cli);
  const from = windowStart({ ...cli, to }, task.cadence);
  const store = await loadStore(config.store);
  try {
    const summary = await finalize({
      store,
      dataset: cli.dataset,
      task,
      versions: config.versions,
      params,
      from,
      to,
      regions: regionsOf(cli),
      concurrency: cli.concurrency,
    });
    const code = exitFor(summary);
    if (cli.json) printJson({ ok: code === EXIT.ok, ...summary });
    else out(describe(summary));
    return code;
  } finally {
    await store.close();
  }
}

export function registerFinalize(program: Command): void {
  windowOptions(
    program
      .command("finalize")
      .description(DESCRIPTIONS.finalize)
      .option("--dataset <name>", "dataset from the config (default: its only one)"),
    "only these regions, comma-separated (checks them; retires nothing)",
  )
    .option("--concurrency <n>", "partitions checked at once", wholeNumber(1), 16)
    .option("--config <path>", CONFIG_HELP, "georefresh.config.json")
    .option("--store <url>", "override the config's store")
    .option("--json", "print one JSON summary")
    .addHelpText("after", HELP)
    .action(action((opts: FinalizeCliOptions) => runFinalize(opts)));
}
