import type { Command } from "commander";
import { action } from "../action.js";
import { DESCRIPTIONS } from "../descriptions.js";
import { loadStore } from "../../store/backends.js";
import { probeStore } from "../../store/probe.js";
import { EXIT } from "../exit-codes.js";
import { err, out, printJson } from "../output.js";

export function registerDoctor(program: Command): void {
  program
    .command("doctor")
    .description(DESCRIPTIONS.doctor)
    .requiredOption(
      "--store <url>",
      "directory, file:///path, memory://name, s3://bucket/prefix or az://container/prefix",
    )
    .option("--json", "print one JSON report instead of lines")
    .addHelpText("after", "\nExit codes: 0 every check passed, 1 a check failed, 2 usage error, 3 store unusable.")
    .action(
      action(async (opts: { store: string; json?: boolean }) => {
        const json = Boolean(opts.json);
        const store = await loadStore(opts.store);
        try {
          const report = await probeStore(store);
          if (json) printJson(report);
          else {
            for (const c of report.checks) out(`${c.ok ? "ok  " : "FAIL"} ${c.name}: ${c.detail}\n`);
            if (!report.ok) err(`georefresh: ${store.url} cannot be used for promotion (see FAIL above)\n`);
          }
          return report.ok ? EXIT.ok : report.checks[0]?.ok === false ? EXIT.store : EXIT.failed;
        } finally {
          await store.close();
        }
      }),
    );
}
