import { describe, expect, it } from "@effect/vitest"
import fc from "fast-check"
import { decide, estimate, WINDOW_MS } from "../../src/auth/slidingWindow.ts"

describe("sliding window counter", () => {
  it("never allows more than the limit over any window start, and a refusal's Retry-After is honest", () => {
    fc.assert(fc.property(
      fc.integer({ min: 1, max: 5_000 }), fc.nat(5_000), fc.nat(5_000), fc.integer({ min: 0, max: WINDOW_MS - 1 }),
      (limit, previous, current, offset) => {
        const c = { windowStart: 0, previous, current }
        const d = decide(c, limit, offset)
        expect(d.allowed).toBe(estimate(c, offset) + 1 <= limit)
        if (!d.allowed) {
          // After Retry-After seconds (with nothing new admitted), one more request fits, or the window rolled over.
          const later = offset + d.retryAfter * 1000
          expect(later >= WINDOW_MS || estimate(c, later) + 1 <= limit + 1e-9).toBe(true)
        }
      }
    ))
  })
})
