import { describe, expect, it } from "@effect/vitest"
import fc from "fast-check"
import { afterResend, DAY_MS, RESEND_AFTER_MS, SENDS_PER_DAY } from "../../../core/newsletter/resend.ts"

const at = (ms: number) => new Date(Date.UTC(2027, 0, 1) + ms)

/** Sign-ups at these offsets (ms, ascending): the offsets at which an email left. */
const sent = (signUps: ReadonlyArray<number>) => {
  let recent: ReadonlyArray<Date> = []
  const out: Array<number> = []
  for (const t of signUps) {
    const next = afterResend(recent, at(t))
    if (next !== undefined) {
      recent = next
      out.push(t)
    }
  }
  return out
}

describe("newsletter confirmation resends", () => {
  it("at most one per 10 minutes and three per 24 hours", () => {
    const minute = 60_000
    expect(sent([0, 5 * minute, 10 * minute, 15 * minute, 20 * minute, 30 * minute, 60 * minute])).toEqual([0, 10 * minute, 20 * minute])
    expect(sent([0, 10 * minute, 20 * minute, DAY_MS - 1, DAY_MS])).toEqual([0, 10 * minute, 20 * minute, DAY_MS])
  })

  it("for any sign-ups: sends 10 minutes apart, at most three in any 24 hours, and a refusal always has its reason", () => {
    fc.assert(fc.property(fc.array(fc.integer({ min: 0, max: 3 * DAY_MS }), { maxLength: 200 }), (raw) => {
      const signUps = [...raw].sort((a, b) => a - b)
      const out = sent(signUps)
      for (let i = 1; i < out.length; i++) expect(out[i]! - out[i - 1]!).toBeGreaterThanOrEqual(RESEND_AFTER_MS)
      for (const start of out) expect(out.filter((t) => t >= start && t < start + DAY_MS).length).toBeLessThanOrEqual(SENDS_PER_DAY)
      // Nothing refused without cause: each refused sign-up had a send within 10 minutes or three within 24 hours.
      for (const t of signUps.filter((s) => !out.includes(s))) {
        const before = out.filter((s) => s <= t && t - s < DAY_MS)
        expect(before.some((s) => t - s < RESEND_AFTER_MS) || before.length >= SENDS_PER_DAY).toBe(true)
      }
    }))
  })
})
