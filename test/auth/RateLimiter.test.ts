import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { RateLimiter } from "../../src/auth/RateLimiter.ts"
import { generateKey, hasScope, hashKey, looksLikeKey } from "../../src/auth/keys.ts"

describe("RateLimiter", () => {
  it.effect("allows the limit as a burst, then refuses with Retry-After until a token refills", () =>
    Effect.gen(function*() {
      let now = 0
      const limiter = RateLimiter.make(() => now)
      const takes = []
      for (let i = 0; i < 61; i++) takes.push(yield* limiter.take("k", 60))
      expect(takes.filter((t) => t.allowed).length).toBe(60)
      expect(takes[60]).toMatchObject({ allowed: false, retryAfter: 1, remaining: 0 })
      now += 1_000
      expect((yield* limiter.take("k", 60)).allowed).toBe(true)
      expect((yield* limiter.take("other", 60)).allowed).toBe(true)
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
