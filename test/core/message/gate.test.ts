import { describe, expect, it } from "@effect/vitest"
import fc from "fast-check"
import { gate, type Recipient } from "../../../core/message/gate.ts"

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
