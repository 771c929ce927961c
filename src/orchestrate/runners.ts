import { sharedAcrossProcesses } from "../store/schemes.js";
import { inlineRunner } from "./runner-inline.js";
import { poolRunner } from "./runner-pool.js";
import type { RunnerName } from "./job.js";
import type { PartitionRunner, RunnerContext, RunnerFactory } from "./runner.js";

/** Every runner by name: a new one (a queue worker, say) is one file and one line here. */
export const RUNNERS: Record<RunnerName, RunnerFactory> = {
  inline: inlineRunner,
  threads: poolRunner("thread"),
  processes: poolRunner("process"),
};

/**
 * The runner the job names, or inline when the job cannot leave this thread: a task with no TaskRef (a library
 * caller's definition), a store only this process can open (memory://), or no workers. A plan of one partition
 * runs inline on worker threads too: a worker would load every module again (≈ 0.25 s) to do what this thread,
 * idle meanwhile, can (bench:sources). Worker processes are kept as asked: they are chosen for crash isolation.
 */
export function runnerFor(ctx: RunnerContext): PartitionRunner {
  const { job } = ctx;
  const portable = job.task !== undefined && sharedAcrossProcesses(job.store) && job.run.workers > 0;
  const lone = job.run.runner === "threads" && ctx.total <= 1;
  return RUNNERS[portable && !lone ? job.run.runner : "inline"](ctx);
}
