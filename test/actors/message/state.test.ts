import { describe, expect, it } from "@effect/vitest"
import fc from "fast-check"
import { advances, gate, isStopKeyword, type Recipient, type ReportedStatus, serviceWindowOpen } from "../../../actors/message/state.ts"

const recipient = fc.record({
  email: fc.option(fc.constant("a@b.com"), { nil: null }),
  phone: fc.option(fc.constant("+34600111222"), { nil: null }),
  email_consent: fc.option(fc.boolean(), { nil: null }),
  whatsapp_marketing_consent: fc.option(fc.boolean(), { nil: null }),
  email_opted_out_at: fc.option(fc.constant(new Date(0)), { nil: null }),
  whatsapp_opted_out_at: fc.option(fc.constant(new Date(0)), { nil: null })
}) satisfies fc.Arbitrary<Recipient>
const channel = fc.constantFrom("email" as const, "whatsapp" as const)
const category = fc.constantFrom("marketing" as const, "utility" as const, "authentication" as const, "service" as const)

describe("the send gate", () => {
  it("marketing leaves only with an address, no suppression, no opt-out and the channel's consent", () => {
    fc.assert(fc.property(recipient, channel, fc.boolean(), (r, ch, suppressed) => {
      const sent = gate(r, ch, "marketing", suppressed) === null
      const address = ch === "email" ? r.email : r.phone
      const consent = ch === "email" ? r.email_consent : r.whatsapp_marketing_consent
      const optedOut = ch === "email" ? r.email_opted_out_at : r.whatsapp_opted_out_at
      expect(sent).toBe(address !== null && !suppressed && optedOut === null && consent === true)
    }))
  })

  it("everything else leaves whenever there is an address that is not suppressed, consent or not", () => {
    fc.assert(fc.property(recipient, channel, category.filter((c) => c !== "marketing"), fc.boolean(), (r, ch, cat, suppressed) => {
      const address = ch === "email" ? r.email : r.phone
      expect(gate(r, ch, cat, suppressed) === null).toBe(address !== null && !suppressed)
    }))
  })

  it("names the reason", () => {
    const r: Recipient = { email: null, phone: "+34600111222", email_consent: null, whatsapp_marketing_consent: false, email_opted_out_at: null, whatsapp_opted_out_at: null }
    expect(gate(r, "email", "utility", false)).toBe("no_email")
    expect(gate({ ...r, phone: null }, "whatsapp", "utility", false)).toBe("no_phone")
    expect(gate(r, "whatsapp", "utility", true)).toBe("suppressed")
    expect(gate(r, "whatsapp", "marketing", false)).toBe("no_whatsapp_marketing_consent")
    expect(gate({ ...r, whatsapp_marketing_consent: true, whatsapp_opted_out_at: new Date() }, "whatsapp", "marketing", false)).toBe("opted_out")
    expect(gate({ ...r, email: "a@b.com" }, "email", "marketing", false)).toBe("no_email_marketing_consent")
  })
})

describe("reported statuses", () => {
  const reported = fc.constantFrom<ReportedStatus>("sent", "delivered", "read", "failed")
  const apply = (start: string, reports: ReadonlyArray<ReportedStatus>) =>
    reports.reduce((s, r) => (advances(s, r) ? r : s), start)
  const RANK: Record<string, number> = { queued: 0, sent: 1, delivered: 2, read: 3 }

  it("never move backwards, whatever order they arrive in", () => {
    fc.assert(fc.property(fc.array(reported, { maxLength: 8 }), (reports) => {
      let s = "queued"
      for (const r of reports) {
        const next = advances(s, r) ? r : s
        if (next !== "failed" && s !== "failed") expect(RANK[next]!).toBeGreaterThanOrEqual(RANK[s]!)
        s = next
      }
    }))
  })

  it("end in the highest status reached, in any arrival order (failed only over queued or sent)", () => {
    fc.assert(fc.property(fc.shuffledSubarray(["sent", "delivered", "read"] as Array<ReportedStatus>, { minLength: 1 }), (reports) => {
      const highest = reports.reduce((a, b) => (RANK[b]! > RANK[a]! ? b : a))
      expect(apply("queued", reports)).toBe(highest)
      expect(apply("queued", [...reports].reverse())).toBe(highest)
    }))
    expect(apply("queued", ["read", "delivered"])).toBe("read")
    expect(apply("sent", ["failed"])).toBe("failed")
    expect(apply("delivered", ["failed"])).toBe("delivered")
    expect(apply("failed", ["read"])).toBe("failed")
    expect(apply("skipped", ["sent"])).toBe("skipped")
  })
})

describe("a guest's reply", () => {
  it("opts out on a stop word alone, in the guests' languages, case, accents and punctuation aside", () => {
    for (const t of ["STOP", "stop", "Stop.", " baja ", "BAJA!", "Arrêt", "STOPP", "Darme de baja", "unsubscribe"]) expect(isStopKeyword(t), t).toBe(true)
    for (const t of ["don't stop", "Stop sending me the offers please?", "Hola", "", "stopover"]) expect(isStopKeyword(t), t).toBe(false)
    expect(isStopKeyword(undefined)).toBe(false)
  })

  it("opens the 24-hour window", () => {
    const now = new Date("2026-11-22T12:00:00Z")
    expect(serviceWindowOpen(new Date("2026-11-21T12:00:01Z"), now)).toBe(true)
    expect(serviceWindowOpen(new Date("2026-11-21T12:00:00Z"), now)).toBe(false)
    expect(serviceWindowOpen(null, now)).toBe(false)
  })
})
