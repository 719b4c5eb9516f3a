import { describe, expect, it } from "@effect/vitest"
import fc from "fast-check"
import { maskEmail, maskPhone, maskText, maskValue } from "../../src/staff/masking.ts"

describe("a viewer's masking", () => {
  it("shows an address's first two characters and its domain, a number's first two and last three digits", () => {
    expect(maskEmail("ana.garcia@example.com")).toBe("an***@example.com")
    expect(maskEmail("ab@example.com")).toBe("a***@example.com")
    expect(maskEmail("a@example.com")).toBe("***@example.com")
    expect(maskPhone("+447700900789")).toBe("+44*******789")
    expect(maskPhone("+44 7700 900789")).toBe("+44*******789")
    expect(maskPhone("600111222")).toBe("60****222")
  })

  it("masks values under contact keys, addresses and + numbers in any text, JSON carried as text, and leaves the rest", () => {
    const answer = {
      data: {
        contact_id: "0b6f3c8e-8a34-4f4e-9a51-1f7d5c1e2a10",
        email: "ana.garcia@example.com",
        phone: "+34600111222",
        wa_id: "34600111222",
        to: "+34 600 111 222",
        from: "2026-11-01",
        count: 12,
        summary: "Email to ana.garcia@example.com; called +34 600 111 222 on 2026-11-20",
        payload: JSON.stringify({ guest: { email: "ana.garcia@example.com", phone: "600111222" } }),
        items: [{ kind: "message", data: { to: "ana.garcia@example.com" } }]
      }
    }
    const masked = maskValue(answer) as any
    expect(masked.data.contact_id).toBe(answer.data.contact_id)
    expect(masked.data.email).toBe("an***@example.com")
    expect(masked.data.phone).toBe("+34******222")
    expect(masked.data.wa_id).toBe("34******222")
    expect(masked.data.to).toBe("+34******222")
    expect(masked.data.from).toBe("2026-11-01")
    expect(masked.data.count).toBe(12)
    expect(masked.data.summary).toBe("Email to an***@example.com; called +34******222 on 2026-11-20")
    expect(JSON.parse(masked.data.payload)).toEqual({ guest: { email: "an***@example.com", phone: "60****222" } })
    expect(masked.data.items[0].data.to).toBe("an***@example.com")
  })

  const local = fc.stringMatching(/^[a-z][a-z0-9._+-]{0,15}[a-z0-9]$/)
  const domain = fc.stringMatching(/^[a-z][a-z0-9-]{0,10}[a-z0-9]\.(com|es|co\.uk|hotel)$/)
  const email = fc.tuple(local, domain).map(([l, d]) => `${l}@${d}`)
  const phone = fc.tuple(fc.integer({ min: 1, max: 99 }), fc.integer({ min: 1_000_000, max: 999_999_999_999 })).map(([c, n]) => `+${c}${n}`)
  const word = fc.stringMatching(/^[A-Za-z0-9,.:;!?()-]{1,12}$/)
  const text = (secrets: ReadonlyArray<string>) => fc.array(fc.oneof(word, fc.constantFrom(...secrets)), { maxLength: 12 }).map((ws) => ws.join(" "))
  const answer = fc.tuple(fc.array(email, { minLength: 1, maxLength: 3 }), fc.array(phone, { minLength: 1, maxLength: 3 })).chain(([emails, phones]) =>
    fc.record({
      emails: fc.constant(emails),
      phones: fc.constant(phones),
      body: fc.record({
        email: fc.constantFrom(...emails),
        phone: fc.constantFrom(...phones),
        note: text([...emails, ...phones]),
        nested: fc.array(fc.record({ to: fc.constantFrom(...emails, ...phones), text: text([...emails, ...phones]) }), { maxLength: 3 }),
        payload: fc.record({ contact: fc.record({ email: fc.constantFrom(...emails), mobile: fc.constantFrom(...phones) }) }).map((p) => JSON.stringify(p))
      })
    }))

  it("never leaves an unmasked address or number in the answer (property)", () => {
    fc.assert(fc.property(answer, ({ emails, phones, body }) => {
      const out = JSON.stringify(maskValue(body))
      for (const e of emails) expect(out).not.toContain(e)
      for (const p of phones) {
        expect(out).not.toContain(p)
        expect(out).not.toContain(p.slice(1))
      }
    }), { numRuns: 300 })
  })

  it("is idempotent: a masked answer masked again is the same (property)", () => {
    fc.assert(fc.property(answer, ({ body }) => {
      const once = maskValue(body)
      expect(maskValue(once)).toEqual(once)
    }), { numRuns: 300 })
    fc.assert(fc.property(fc.string(), (s) => {
      expect(maskText(maskText(s))).toBe(maskText(s))
    }), { numRuns: 500 })
  })
})
