import { BaseSequencer } from "vitest/node";
import type { TestSpecification } from "vitest/node";

/**
 * The files that take longest start first (the end of each CI run prints every file's time), so that neither of
 * the two forks is left finishing a two-minute file alone while the other is idle. The rest keep vitest's order.
 */
const SLOW_FIRST = [
  /kill-azurite-/,
  /kill-rgw-/,
  /kill-fs-/,
  /process-race-/,
  /engines\/slurm/,
  /infra\/manifests/,
  /kill-shard-/,
  /gc-azurite|gc-rgw/,
  /store\/fs-crash/,
  /memo\.test/,
  /store\/(rgw|azurite)\./,
  /gc-race-/,
];

export default class SlowFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const rank = (f: TestSpecification) => {
      const i = SLOW_FIRST.findIndex((p) => p.test(f.moduleId));
      return i < 0 ? SLOW_FIRST.length : i;
    };
    return sorted
      .map((f, i) => [f, i] as const)
      .sort((a, b) => rank(a[0]) - rank(b[0]) || a[1] - b[1])
      .map(([f]) => f);
  }
}
