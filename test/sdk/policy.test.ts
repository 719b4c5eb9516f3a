import { describe, expect, it } from "@effect/vitest"
import fc from "fast-check"
import {
  ATTEMPTS, capped, fitting, MAX_BYTES, MAX_EVENTS, MAX_RETRY_AFTER_MS, retryable, retryAfterMs, retryDelay
} from "../../src/sdk/browser/policy.ts"

// The browser SDK's sending rules (bundled into svc-events.js), without a browser.
const NOW = Date.parse("2026-11-23T10:00:00Z")

describe("svc-events.js sending rules", () => {
  it("waits 1, 2, 4, 8 s after failed attempts 1 to 4, and stops after the fifth", () => {
    expect([1, 2, 3, 4, 5].map((n) => retryDelay(n, null, NOW))).toEqual([1000, 2000, 4000, 8000, undefined])
    expect(ATTEMPTS).toBe(5)
  })

  it("Retry-After in seconds or as an HTTP date replaces the step, between 0 and 60 s; never past the fifth attempt", () => {
    fc.assert(fc.property(fc.integer({ min: 1, max: 6 }), fc.integer({ min: 0, max: 100_000 }), fc.boolean(), (failed, seconds, asDate) => {
      const header = asDate ? new Date(NOW + seconds * 1000).toUTCString() : String(seconds)
      const wait = retryDelay(failed, header, NOW)
      if (failed >= ATTEMPTS) return wait === undefined
      return wait === Math.min(seconds * 1000, MAX_RETRY_AFTER_MS)
    }))
    expect(retryAfterMs(new Date(NOW - 5000).toUTCString(), NOW)).toBe(0) // a date in the past: at once
  })

  it("an unreadable Retry-After falls back to the step", () => {
    fc.assert(fc.property(fc.integer({ min: 1, max: 4 }), fc.string().filter((s) => !/^\s*\d+\s*$/.test(s) && Number.isNaN(Date.parse(s))), (failed, junk) =>
      retryDelay(failed, junk, NOW) === 1000 * 2 ** (failed - 1)))
  })

  it("retries network errors, 429 and 5xx only", () => {
    fc.assert(fc.property(fc.integer({ min: 0, max: 599 }), (status) =>
      retryable(status) === (status === 0 || status === 429 || status >= 500)))
  })

  it("a request carries 1 to 50 events and at most 60 KB, unless the first event alone is larger", () => {
    fc.assert(fc.property(fc.array(fc.integer({ min: 2, max: 70_000 }), { maxLength: 120 }), (sizes) => {
      const n = fitting(sizes)
      if (sizes.length === 0) return n === 0
      const bytes = 12 + sizes.slice(0, n).reduce((a, s) => a + s + 1, 0)
      const full = n === Math.min(sizes.length, MAX_EVENTS) || bytes + sizes[n]! + 1 > MAX_BYTES
      return n >= 1 && n <= MAX_EVENTS && (n === 1 || bytes <= MAX_BYTES) && full
    }))
  })

  it("at most 50 events wait: the newest are kept, in order", () => {
    fc.assert(fc.property(fc.array(fc.integer(), { maxLength: 200 }), (queue) => {
      const kept = capped([...queue])
      return kept.length === Math.min(queue.length, MAX_EVENTS) && JSON.stringify(kept) === JSON.stringify(queue.slice(-kept.length || queue.length))
    }))
  })
})
