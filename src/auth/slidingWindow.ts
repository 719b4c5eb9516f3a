export const WINDOW_MS = 60_000

export interface WindowCounts {
  /** Start of the current one-minute window (ms since epoch). */
  readonly windowStart: number
  readonly current: number
  readonly previous: number
}

export interface Decision {
  readonly allowed: boolean
  readonly limit: number
  readonly remaining: number
  /** Seconds until a request would be allowed again (0 when allowed). */
  readonly retryAfter: number
  /** Seconds until the current window ends. */
  readonly resetAfter: number
}

export const windowStartOf = (now: number) => now - (now % WINDOW_MS)

/**
 * Sliding-window counter (as Cloudflare and others do it): the previous minute's count weighted by how much of it
 * still overlaps the last 60 seconds, plus the current minute's count. Smooth at window edges, two numbers per key.
 */
export const estimate = (c: WindowCounts, now: number): number => {
  const elapsed = (now - c.windowStart) / WINDOW_MS
  return c.previous * Math.max(0, 1 - elapsed) + c.current
}

export const decide = (c: WindowCounts, limit: number, now: number): Decision => {
  const used = estimate(c, now)
  const resetAfter = Math.max(1, Math.ceil((c.windowStart + WINDOW_MS - now) / 1000))
  if (used + 1 <= limit) {
    return { allowed: true, limit, remaining: Math.max(0, Math.floor(limit - used - 1)), retryAfter: 0, resetAfter }
  }
  // When does the weighted previous window shrink enough? If the current window alone is full, at its end.
  let retryMs: number
  if (c.current + 1 > limit || c.previous === 0) retryMs = c.windowStart + WINDOW_MS - now
  else retryMs = (1 - (limit - 1 - c.current) / c.previous) * WINDOW_MS - (now - c.windowStart)
  return { allowed: false, limit, remaining: 0, retryAfter: Math.max(1, Math.ceil(retryMs / 1000)), resetAfter }
}
