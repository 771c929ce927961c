import { randomUUID } from "node:crypto";
import type { Command } from "commander";
import { action } from "../action.js";
import { dateFlag } from "../window.js";
import { DESCRIPTIONS } from "../descriptions.js";
import { refreshPartition } from "../../protocol/refresh.js";
import { openDataset } from "../../views/reader.js";
import { loadScheme } from "../../store/backends.js";
import { MemoryStore } from "../../store/memory.js";
import { CONFIG_HELP, datasetOf, openConfig } from "../context.js";
import type { CommonOptions } from "../context.js";
import { EXIT, EXIT_CODE } from "../exit-codes.js";
import { err, out, printJson, reportError } from "../output.js";

/**
 * Proves a partition is reproducible: computes it twice, each time into its own scratch store, and compares the
 * artifacts byte for byte with each other and with what the real manifest points at.
 */
export function registerVerify(program: Command): void {
  program
    .command("verify")
    .description(DESCRIPTIONS.verify)
    .argument("<dataset>")
    .requiredOption("--region <region>", "the region to re-run")
    .requiredOption("--date <date>", "logical date")
    .option("--config <path>", CONFIG_HELP, "georefresh.config.json")
    .option("--store <url>", "override the config's store")
    .option("--json", "one JSON report")
    .addHelpText(
      "after",
      "\nExit codes: 0 reproducible and matching the manifest, 1 a difference (listed), 2 usage, 3 store, 5 the task failed.",
    )
    .action(
      action(async (name: string, opts: CommonOptions & { region: string; date: string }) => {
        dateFlag("date", opts.date);
        const config = await openConfig(opts);
        const { task, params } = datasetOf(config, name);
        const partition = { dataset: name, region: opts.region, date: opts.date };
        const runs = [];
        for (const label of ["a", "b"]) {
          const scratchName = `verify-${label}-${randomUUID()}`;
          const scratch = new MemoryStore(scratchName);
          const r = await refreshPartition({
            store: scratch,
            task,
            partition,
            versions: config.versions,
            params,
            overridePlausibility: true,
          });
          MemoryStore.reset(scratchName);
          // The task's own outcome says the code (5 when it failed), as `run` would.
          if (r.outcome !== "promoted") {
            reportError(new Error(`scratch run ${label} ended ${r.outcome}: ${r.message}`), Boolean(opts.json));
            return EXIT_CODE[r.outcome];
          }
          runs.push(r);
        }
        await loadScheme(config.store);
        const real = await openDataset(config.store, name)
          .manifest(opts.region, { date: opts.date })
          .catch(() => undefined);
        const differences: string[] = [];
        if (runs[0]?.sha256 !== runs[1]?.sha256)
          differences.push(
            `the two scratch artifacts differ: ${runs[0]?.sha256} vs ${runs[1]?.sha256} (the task is not deterministic)`,
          );
        if (runs[0]?.key !== runs[1]?.key)
          differences.push(`the two runs derived different keys: ${runs[0]?.key} vs ${runs[1]?.key}`);
        if (!real?.current)
          differences.push(`the store has no promoted artifact for ${name} ${opts.region} ${opts.date}`);
        else if (real.current.sha256 !== runs[0]?.sha256)
          differences.push(
            `${real.current.artifact} (sha256 ${real.current.sha256}) differs from a fresh run (${runs[0]?.sha256}): a re-run would change the manifest`,
          );
        const report = {
          ok: differences.length === 0,
          partition,
          key: runs[0]?.key,
          sha256: runs[0]?.sha256,
          differences,
        };
        if (opts.json) printJson(report);
        else if (!report.ok) err(differences.map((d) => `georefresh: ${d}\n`).join(""));
        else
          out(
            `verified ${name} ${opts.region} ${opts.date}: two fresh runs gave the same key ${report.key} and the bytes the store holds\n`,
          );
        return report.ok ? EXIT.ok : EXIT.failed;
      }),
    );
}
