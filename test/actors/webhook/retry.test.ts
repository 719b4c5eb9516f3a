import { describe, expect, it } from "@effect/vitest"
import fc from "fast-check"
import { backoffMs, outcomeOf, retryWaitMs } from "../../../actors/webhook/retry.ts"

const policy = { max_attempts: 10, initial_backoff_seconds: 30, max_backoff_seconds: 7200 }

describe("webhook retry schedule", () => {
  it("doubles from the initial wait up to the cap, jitter only shortening by up to 20%", () => {
    expect([1, 2, 3, 8, 9, 20].map((n) => backoffMs(n, policy, () => 0))).toEqual([30_000, 60_000, 120_000, 3_840_000, 7_200_000, 7_200_000])
    expect(backoffMs(1, policy, () => 0.999_999)).toBe(24_000)
  })

  it("every wait is longer than the previous one until the cap, whatever the jitter (property)", () => {
    const p = fc.record({ initial: fc.integer({ min: 1, max: 3600 }), max: fc.integer({ min: 1, max: 21_600 }) })
      .filter(({ initial, max }) => max >= initial)
    fc.assert(fc.property(p, fc.integer({ min: 1, max: 19 }), fc.double({ min: 0, max: 0.999, noNaN: true }), fc.double({ min: 0, max: 0.999, noNaN: true }), ({ initial, max }, n, r1, r2) => {
      const pol = { max_attempts: 20, initial_backoff_seconds: initial, max_backoff_seconds: max }
      const a = backoffMs(n, pol, () => r1)
      const b = backoffMs(n + 1, pol, () => r2)
      const capped = initial * 2 ** n > max
      return a <= max * 1000 && b <= max * 1000 && a >= initial * 800 && (capped || b > a)
    }))
  })

  it("honours a longer Retry-After, never past the cap", () => {
    expect(retryWaitMs(1, policy, 90, () => 0)).toBe(90_000)
    expect(retryWaitMs(1, policy, 5, () => 0)).toBe(30_000)
    expect(retryWaitMs(1, policy, 999_999, () => 0)).toBe(7_200_000)
  })

  it("2xx succeeds, 410 is gone, everything else (3xx redirects included) is a failure to retry", () => {
    expect([200, 204, 299].map(outcomeOf)).toEqual(["succeeded", "succeeded", "succeeded"])
    expect(outcomeOf(410)).toBe("gone")
    expect([301, 302, 400, 404, 429, 500, 503, undefined].map(outcomeOf)).toEqual(Array(8).fill("failed"))
  })
})
