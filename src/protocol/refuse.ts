import { recordRefusal } from "../manifest/refusal.js";
import type { RefreshOptions, RefreshResult } from "./refresh-types.js";
import type { RunPlan } from "./run-plan.js";

/**
 * After validation or plausibility refused a partition (nothing was published): records why beside its manifest,
 * so ls, show and the report say it (issue 27 item 5). Bookkeeping only: when it cannot be written, the outcome
 * says so and stays `invalid`.
 */
export async function recordRefused(
  opts: RefreshOptions,
  plan: RunPlan | undefined,
  refused: RefreshResult,
): Promise<RefreshResult> {
  const { store, partition } = opts;
  try {
    await recordRefusal(store, {
      dataset: partition.dataset,
      region: partition.region,
      logical_date: partition.date,
      key: plan?.key ?? null,
      run_id: refused.runId,
      at: new Date().toISOString(),
      message: refused.message,
      current_sha256: plan?.start?.manifest.current?.sha256 ?? null,
    });
    return refused;
  } catch (error) {
    return {
      ...refused,
      message: `${refused.message} (the refusal could not be recorded: ${(error as Error).message})`,
    };
  }
}
