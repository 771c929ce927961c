import type { Command } from "commander";
import { action } from "../action.js";
import { DESCRIPTIONS } from "../descriptions.js";
import { crsFromCode, CrsError } from "../../geo/crs/crs.js";
import { GeoParquetReadError } from "../../geoparquet/read.js";
import { RULES, validateGeoParquetFile } from "../../geoparquet/validate.js";
import type { FileReport } from "../../geoparquet/validate.js";
import { isStoreError } from "../../store/errors.js";
import { EXIT } from "../exit-codes.js";
import { InputError, readInput } from "../input.js";
import { wholeNumber } from "../context.js";
import { err, printJson } from "../output.js";

function printReport(r: FileReport): void {
  const head = `${r.file}: ${r.ok ? "ok" : "FAIL"} (${r.rows} rows${r.crs ? `, ${r.crs}` : ""})`;
  (r.ok ? process.stdout : process.stderr).write(`${head}\n`);
  for (const f of [...r.errors, ...r.warnings]) {
    const where = [f.column && `column ${f.column}`, f.row !== undefined && `row ${f.row}`].filter(Boolean).join(" ");
    (f.severity === "error" || !r.ok ? process.stderr : process.stdout).write(
      `  ${f.severity.padEnd(7)} ${f.rule}${where ? ` (${where})` : ""}: ${f.message}\n`,
    );
  }
  for (const s of r.skipped) process.stdout.write(`  skipped ${s}\n`);
}

export function registerValidate(program: Command): void {
  program
    .command("validate")
    .description(DESCRIPTIONS.validate)
    .argument("<files...>", "local paths, file://, s3://bucket/key or az://container/key URLs")
    .option("--json", "print one JSON report")
    .option("--expect-crs <crs>", "fail unless the primary geometry column is in this CRS (e.g. EPSG:5070, OGC:CRS84)")
    .option("--threads <n>", "worker threads for geometry checks (default: one per core)", wholeNumber(0))
    .option("--strict", "fail on warnings too (best-practice rules: compression, row-group-size, spatial-order, …)")
    .option("--ignore <rules>", "leave out findings of these rules (comma-separated names, see docs/validate.md)")
    .addHelpText(
      "after",
      "\nWarnings are printed but pass (exit 0) unless --strict. Rule names: docs/validate.md.\nExit codes: 0 every file passed, 1 a file failed a rule, 2 usage error or a file that cannot be read as Parquet, 3 store unusable.",
    )
    .action(
      action(
        async (
          files: string[],
          opts: { json?: boolean; expectCrs?: string; threads?: number; strict?: boolean; ignore?: string },
        ) => {
          const reports: FileReport[] = [];
          let exit: number = EXIT.ok;
          const errors: { file: string; error: string }[] = [];
          let expectCrs;
          try {
            expectCrs = opts.expectCrs ? crsFromCode(opts.expectCrs) : undefined;
          } catch (error) {
            err(`georefresh: --expect-crs: ${(error as CrsError).message}\n`);
            return EXIT.usage;
          }
          const ignore =
            opts.ignore
              ?.split(",")
              .map((r) => r.trim())
              .filter(Boolean) ?? [];
          const unknown = ignore.filter((r) => !(RULES as readonly string[]).includes(r));
          if (unknown.length) {
            err(
              `georefresh: --ignore: unknown rule ${unknown.map((r) => JSON.stringify(r)).join(", ")} (rules: ${RULES.join(", ")})\n`,
            );
            return EXIT.usage;
          }
          for (const file of files) {
            try {
              const report = await validateGeoParquetFile(await readInput(file), file, {
                expectCrs,
                threads: opts.threads,
                strict: opts.strict,
                ignore: opts.ignore
                  ?.split(",")
                  .map((r) => r.trim())
                  .filter(Boolean),
              });
              reports.push(report);
              if (!report.ok && exit === EXIT.ok) exit = EXIT.failed;
              if (!opts.json) printReport(report);
            } catch (error) {
              if (!(error instanceof InputError || error instanceof GeoParquetReadError || isStoreError(error)))
                throw error;
              exit = Math.max(exit, isStoreError(error) ? EXIT.store : EXIT.usage);
              errors.push({ file, error: error.message });
              if (!opts.json) err(`georefresh: ${error.message}\n`);
            }
          }
          if (opts.json) printJson({ ok: exit === EXIT.ok, files: reports, errors });
          return exit;
        },
      ),
    );
}
