import { describe, expect, it } from "@effect/vitest"
import fc from "fast-check"
import {
  type BroadcastFacts, capHoursOf, capWindowStart, decideBroadcast, DEFAULT_MARKETING_CAP_HOURS, isBroadcastSkipReason,
  recipientSkipReason
} from "../../../core/message/broadcastGate.ts"
import type { SkipReason } from "../../../core/message/gate.ts"

const now = new Date("2026-06-10T12:00:00Z")
const sending: BroadcastFacts = {
  status: "sending", sendDeadline: null, now, gate: null, matches: true, category: "marketing", recentMarketing: 0,
  capHours: 16, quietUntil: now.getTime()
}
const GATE: ReadonlyArray<SkipReason> = ["no_email", "no_phone", "suppressed", "opted_out", "no_email_marketing_consent", "no_whatsapp_marketing_consent"]

describe("the broadcast send decision", () => {
  it("sends a matching, consenting, uncapped recipient outside quiet hours at once", () => {
    expect(decideBroadcast(sending)).toEqual({ send: true, notBefore: null })
  })

  it("holds, never skips, inside quiet hours", () => {
    const until = now.getTime() + 3_600_000
    expect(decideBroadcast({ ...sending, quietUntil: until })).toEqual({ send: true, notBefore: new Date(until) })
  })

  it("applies its rules in order: broadcast, deadline, gate, segment, cap; the first that says no names the reason", () => {
    const facts = fc.record({
      status: fc.constantFrom(undefined, "sending", "cancelled", "paused"),
      deadlinePassed: fc.option(fc.boolean(), { nil: undefined }),
      gate: fc.option(fc.constantFrom(...GATE), { nil: null }),
      matches: fc.boolean(),
      category: fc.constantFrom("marketing" as const, "utility" as const),
      recentMarketing: fc.nat(3),
      capHours: fc.constantFrom(0, 1, 16),
      held: fc.boolean()
    })
    fc.assert(fc.property(facts, (f) => {
      const d = decideBroadcast({
        status: f.status,
        sendDeadline: f.deadlinePassed === undefined ? null : new Date(now.getTime() + (f.deadlinePassed ? -1 : 1)),
        now, gate: f.gate, matches: f.matches, category: f.category, recentMarketing: f.recentMarketing, capHours: f.capHours,
        quietUntil: now.getTime() + (f.held ? 60_000 : 0)
      })
      const expected = f.status === undefined || f.status === "cancelled" ? "cancelled"
        : f.deadlinePassed === true ? "deadline_passed"
        : f.gate !== null ? f.gate
        : !f.matches ? "no_longer_matches"
        : f.category === "marketing" && f.capHours > 0 && f.recentMarketing > 0 ? "frequency_cap"
        : undefined
      // The deadline, when not passed, is 1 ms ahead: a hold of a minute goes past it.
      const heldPastDeadline = f.held && f.deadlinePassed === false
      if (expected === undefined && heldPastDeadline) expect(d).toEqual({ send: false, reason: "deadline_passed" })
      else if (expected === undefined) expect(d).toEqual({ send: true, notBefore: f.held ? new Date(now.getTime() + 60_000) : null })
      else expect(d).toEqual({ send: false, reason: expected })
    }), { numRuns: 500 })
  })

  it("skips as deadline_passed a message quiet hours would hold past the deadline", () => {
    const until = now.getTime() + 3_600_000
    expect(decideBroadcast({ ...sending, quietUntil: until, sendDeadline: new Date(until - 1) })).toEqual({ send: false, reason: "deadline_passed" })
    expect(decideBroadcast({ ...sending, quietUntil: until, sendDeadline: new Date(until) })).toEqual({ send: true, notBefore: new Date(until) })
  })

  it("the deadline is past only after it: a send at the deadline itself still goes", () => {
    expect(decideBroadcast({ ...sending, sendDeadline: now })).toEqual({ send: true, notBefore: null })
    expect(decideBroadcast({ ...sending, sendDeadline: new Date(now.getTime() - 1) })).toEqual({ send: false, reason: "deadline_passed" })
  })
})

describe("the marketing frequency cap", () => {
  it("defaults to 16 hours, 0 turns it off, any other setting is its window", () => {
    expect(capHoursOf(null)).toBe(DEFAULT_MARKETING_CAP_HOURS)
    expect(capHoursOf(undefined)).toBe(16)
    expect(capHoursOf(0)).toBe(0)
    expect(capHoursOf(24)).toBe(24)
    expect(capWindowStart(now, 0)).toBeUndefined()
    expect(capWindowStart(now, 16)).toEqual(new Date("2026-06-09T20:00:00Z"))
  })

  it("the window ends at now and is exactly the cap long", () => {
    fc.assert(fc.property(fc.integer({ min: 1, max: 8760 }), fc.integer({ min: 0, max: 4_000_000_000_000 }), (hours, t) => {
      const start = capWindowStart(new Date(t), hours)!
      expect(t - start.getTime()).toBe(hours * 3_600_000)
    }))
  })

  it("caps only marketing", () => {
    expect(decideBroadcast({ ...sending, recentMarketing: 1 })).toEqual({ send: false, reason: "frequency_cap" })
    expect(decideBroadcast({ ...sending, recentMarketing: 1, category: "utility" })).toEqual({ send: true, notBefore: null })
    expect(decideBroadcast({ ...sending, recentMarketing: 5, capHours: 0 })).toEqual({ send: true, notBefore: null })
  })
})

describe("a recipient's skip reason", () => {
  it("reads every consent reason as no_consent and every other reason unchanged", () => {
    expect(recipientSkipReason("opted_out")).toBe("no_consent")
    expect(recipientSkipReason("no_email_marketing_consent")).toBe("no_consent")
    expect(recipientSkipReason("no_whatsapp_marketing_consent")).toBe("no_consent")
    for (const r of ["suppressed", "no_email", "no_phone", "no_longer_matches", "frequency_cap", "deadline_passed", "cancelled"] as const) {
      expect(recipientSkipReason(r)).toBe(r)
      expect(isBroadcastSkipReason(r)).toBe(true)
    }
    expect(isBroadcastSkipReason("no_consent")).toBe(false)
    expect(isBroadcastSkipReason("opted_out")).toBe(true)
  })
})
