import type { Command } from "commander";
import { action } from "../action.js";
import { EXIT } from "../exit-codes.js";
import { DESCRIPTIONS } from "../descriptions.js";
import { writeStac } from "../../stac/publish.js";
import type { StacSummary } from "../../stac/publish.js";
import { sizeText } from "../../sizes.js";
import { loadStore } from "../../store/backends.js";
import { CONFIG_HELP, datasetOf, openConfig } from "../context.js";
import type { CommonOptions } from "../context.js";
import { out, printJson } from "../output.js";
import { stepsProgress } from "../progress.js";

const HELP = `
Writes stac/<dataset>/collection.json, one Item per current partition (items/), one per earlier version still
in manifest history (versions/), and items.parquet (stac-geoparquet), all generated from the manifests. Objects
already as they should be are not written again; Items of partitions no longer current are deleted. Run it after
a backfill or finalize (backfill and finalize do not run it: it reads every manifest). The Collection's license,
title and description come from the dataset's "catalog" in the config (license defaults to "other").

Exit codes: 0 written; 1 a manifest could not be read (nothing was written); 2 usage; 3 the store cannot be used;
75 the store was unreachable, run again later.`;

export function registerStac(program: Command): void {
  program
    .command("stac")
    .description(DESCRIPTIONS.stac)
    .argument("<dataset>")
    .option("--config <path>", CONFIG_HELP, "georefresh.config.json")
    .option("--store <url>", "override the config's store")
    .option("--json", "print the counts as JSON")
    .addHelpText("after", HELP)
    .action(
      action(async (name: string, opts: CommonOptions) => {
        const config = await openConfig(opts);
        const { task, catalog } = datasetOf(config, name);
        const store = await loadStore(config.store);
        try {
          const onProgress = stepsProgress(`stac ${name}`, Boolean(opts.json), false);
          const summary = await writeStac(store, name, { cadence: task.cadence, ...catalog, onProgress });
          if (opts.json) printJson({ ok: true, ...summary });
          else out(stacLine(name, summary));
        } finally {
          await store.close();
        }
        return EXIT.ok;
      }),
    );
}

/** The outcome line: where the catalog is, and what this run wrote of it. */
function stacLine(name: string, s: StacSummary): string {
  const n = (k: number, what: string) => `${k} ${what}${k === 1 ? "" : "s"}`;
  const what = `a Collection, ${n(s.items, "Item")} of current partitions and ${n(s.versions, "Item")} of earlier versions, items.parquet`;
  const done =
    s.written === 0
      ? `nothing written (all ${s.unchanged} objects as they should be)`
      : `${n(s.written, "object")} written (${sizeText(s.bytes_written)}), ${s.unchanged} unchanged`;
  return `stac ${name} → ${s.collection}: ${what}; ${done}${s.deleted ? `, ${s.deleted} deleted` : ""}\n`;
}
