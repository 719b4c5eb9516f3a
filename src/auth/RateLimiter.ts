import { Context, Effect, Layer } from "effect"

export interface RateDecision {
  readonly allowed: boolean
  readonly limit: number
  readonly remaining: number
  /** Seconds until a request would be allowed again (0 when allowed). */
  readonly retryAfter: number
  /** Seconds until the bucket is full again. */
  readonly resetAfter: number
}

interface Bucket {
  tokens: number
  at: number
}

/**
 * Token bucket per key: `limit` requests per minute with bursts up to `limit`, refilled continuously.
 * Per process for now (cluster-wide limits come with the scale-out work).
 */
export class RateLimiter extends Context.Service<RateLimiter, {
  readonly take: (key: string, limitPerMinute: number) => Effect.Effect<RateDecision>
}>()("app/auth/RateLimiter") {
  static readonly make = (now: () => number = Date.now) => {
    const buckets = new Map<string, Bucket>()
    const take = (key: string, limit: number): RateDecision => {
      const t = now()
      const perMs = limit / 60_000
      const b = buckets.get(key) ?? { tokens: limit, at: t }
      b.tokens = Math.min(limit, b.tokens + (t - b.at) * perMs)
      b.at = t
      buckets.set(key, b)
      const allowed = b.tokens >= 1
      if (allowed) b.tokens -= 1
      return {
        allowed,
        limit,
        remaining: Math.floor(b.tokens),
        retryAfter: allowed ? 0 : Math.max(1, Math.ceil((1 - b.tokens) / perMs / 1000)),
        resetAfter: Math.ceil((limit - b.tokens) / perMs / 1000)
      }
    }
    return RateLimiter.of({ take: (key, limit) => Effect.sync(() => take(key, limit)) })
  }

  static readonly layer = Layer.sync(RateLimiter, () => RateLimiter.make())
}
