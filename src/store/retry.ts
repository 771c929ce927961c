import { setTimeout as sleep } from "node:timers/promises";

export interface RetryPolicy {
  attempts: number;
  baseMs: number;
  capMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = { attempts: 5, baseMs: 50, capMs: 2_000 };

/** "Full jitter" backoff: many clients retrying together spread out instead of colliding again. */
export function backoffMs(attempt: number, policy: RetryPolicy = DEFAULT_RETRY): number {
  return Math.random() * Math.min(policy.capMs, policy.baseMs * 2 ** attempt);
}

/** Retries `call` while `retryable(error)` holds, up to policy.attempts tries in all. */
export async function withRetry<T>(
  call: () => Promise<T>,
  retryable: (error: unknown) => boolean,
  policy: RetryPolicy = DEFAULT_RETRY,
): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await call();
    } catch (error) {
      if (attempt + 1 >= policy.attempts || !retryable(error)) throw error;
      await sleep(backoffMs(attempt, policy));
    }
  }
}
