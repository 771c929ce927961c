import { relative } from "node:path";
import type { Reporter, TestModule } from "vitest/node";

/**
 * Ends the run with each file's time (slowest first: where the suite's minutes go) and one plain
 * "tests: N passed, N failed, N skipped" line that any CI log reader understands.
 */
export default class SummaryReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>, unhandledErrors: ReadonlyArray<unknown>): void {
    let passed = 0;
    let failed = unhandledErrors.length;
    let skipped = 0;
    const times: [string, number, number, number][] = [];
    for (const module of testModules) {
      let count = 0;
      for (const test of module.children.allTests()) {
        count++;
        const state = test.result().state;
        if (state === "passed") passed++;
        else if (state === "failed") failed++;
        else skipped++;
      }
      if (module.state() === "failed" && count === 0) failed++;
      const d = module.diagnostic();
      times.push([relative(process.cwd(), module.moduleId), d.duration, d.collectDuration, count]);
    }
    times.sort((a, b) => b[1] + b[2] - (a[1] + a[2]));
    const total = times.reduce((s, t) => s + t[1] + t[2], 0);
    const lines = times.map(
      ([file, run, load, n]) =>
        `${((run + load) / 1000).toFixed(1).padStart(7)} s  (import ${(load / 1000).toFixed(1).padStart(5)} s)  ${String(n).padStart(3)} tests  ${file}`,
    );
    process.stdout.write(
      `\nper-file times (tests + import; ${(total / 1000).toFixed(0)} s summed over both forks):\n${lines.join("\n")}\n`,
    );
    process.stdout.write(`\ntests: ${passed} passed, ${failed} failed, ${skipped} skipped\n`);
  }
}
