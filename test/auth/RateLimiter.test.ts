import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { RateLimiter } from "../../src/auth/RateLimiter.ts"
import { generateKey, hasScope, hashKey, looksLikeKey } from "../../src/auth/keys.ts"

describe("RateLimiter", () => {
  it.effect("allows the limit within a minute, then refuses with Retry-After; other buckets are separate", () =>
    Effect.gen(function*() {
      let now = 120_000 // the start of a window
      const limiter = RateLimiter.local(() => now)
      const takes = []
      for (let i = 0; i < 61; i++) takes.push(yield* limiter.take("k", 60))
      expect(takes.filter((t) => t.allowed).length).toBe(60)
      expect(takes[59]).toMatchObject({ allowed: true, remaining: 0 })
      expect(takes[60]).toMatchObject({ allowed: false, remaining: 0, retryAfter: 60 })
      expect((yield* limiter.take("other", 60)).allowed).toBe(true)
      // One minute later the previous window still weighs almost fully; it fades over the next minute.
      now += 60_000
      expect((yield* limiter.take("k", 60)).allowed).toBe(false)
      now += 30_000
      const half = []
      for (let i = 0; i < 40; i++) half.push(yield* limiter.take("k", 60))
      expect(half.filter((t) => t.allowed).length).toBe(30)
    }))
})

describe("API keys", () => {
  it("generates distinct prefixed keys that look like keys, hashes them, and checks scopes", () => {
    const live = generateKey(false)
    const test = generateKey(true)
    expect(live).toMatch(/^svckr_[0-9A-Za-z]{32}$/)
    expect(test).toMatch(/^svckr_test_[0-9A-Za-z]{32}$/)
    expect(looksLikeKey(live) && looksLikeKey(test)).toBe(true)
    expect(hashKey(live).equals(hashKey(live))).toBe(true)
    expect(hashKey(live).equals(hashKey(test))).toBe(false)
    expect(hasScope(["*"], "reservations:write")).toBe(true)
    expect(hasScope(["guests:read"], "reservations:write")).toBe(false)
  })
})
