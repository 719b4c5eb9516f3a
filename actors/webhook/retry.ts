export interface RetryPolicy {
  readonly max_attempts: number
  readonly initial_backoff_seconds: number
  readonly max_backoff_seconds: number
}

/**
 * The wait after failed attempt `attempt` (1-based): initial x 2^(attempt-1), capped at max, minus up to 20% jitter.
 * Jitter only shortens, so the cap holds and each wait stays longer than the one before until the cap (0.8 x 2 > 1):
 * partners see growing waits, and retries of many events failing together spread out instead of arriving in step.
 */
export const backoffMs = (attempt: number, policy: RetryPolicy, random: () => number = Math.random): number => {
  const nominal = Math.min(policy.max_backoff_seconds, policy.initial_backoff_seconds * 2 ** Math.min(attempt - 1, 30))
  return Math.round(nominal * 1000 * (1 - 0.2 * random()))
}

/** A receiver's Retry-After (429/503) lengthens the wait, never beyond the policy's cap. */
export const retryWaitMs = (attempt: number, policy: RetryPolicy, retryAfterSeconds?: number, random?: () => number): number => {
  const wait = backoffMs(attempt, policy, random)
  if (retryAfterSeconds === undefined || !Number.isFinite(retryAfterSeconds) || retryAfterSeconds <= 0) return wait
  return Math.max(wait, Math.min(retryAfterSeconds, policy.max_backoff_seconds) * 1000)
}

export type Outcome = "succeeded" | "failed" | "gone"

/** 2xx is success; 410 means the receiver is gone for good (the subscription gets disabled); anything else is retried. */
export const outcomeOf = (status: number | undefined): Outcome =>
  status !== undefined && status >= 200 && status < 300 ? "succeeded" : status === 410 ? "gone" : "failed"
