import { describe, expect, it } from "vitest"
import fc from "fast-check"
import { normaliseEmail } from "../../../core/normalise/email.ts"
import {
  OTA_RELAY_EMAIL_DOMAINS,
  PLACEHOLDER_EMAIL_DOMAINS,
  PLACEHOLDER_EMAIL_LOCAL_PARTS,
  PLACEHOLDER_EMAILS
} from "../../../core/normalise/placeholders.ts"

describe("normaliseEmail: accepted", () => {
  it.each([
    ["  John.Doe@Gmail.COM ", "john.doe@gmail.com"],
    ["maria+hotel@example-mail.es", "maria+hotel@example-mail.es"],
    ["o'brien@mail.co.uk", "o'brien@mail.co.uk"],
    ["a@b.io", "a@b.io"],
    ["anna@xn--80ak6aa92e.xn--p1ai", "anna@xn--80ak6aa92e.xn--p1ai"],
    ["info.smith@gmail.com", "info.smith@gmail.com"], // only the exact role local part is a placeholder
    ["guest@booking.com", "guest@booking.com"] // the relay is guest.booking.com, not booking.com itself
  ])("%j -> %s", (raw, email) => {
    expect(normaliseEmail(raw)).toEqual({ ok: true, email })
  })
})

describe("normaliseEmail: rejected", () => {
  it.each([
    ["", "empty"],
    [" \t ", "empty"],
    ["plainaddress", "invalid"],
    ["a@b", "invalid"],
    ["a@b.c", "invalid"],
    ["a@@b.com", "invalid"],
    ["a@b@c.com", "invalid"],
    [".a@b.com", "invalid"],
    ["a..b@c.com", "invalid"],
    ["a.@b.com", "invalid"],
    ["a b@c.com", "invalid"],
    ["a@-b.com", "invalid"],
    ["a@b-.com", "invalid"],
    ["a@b..com", "invalid"],
    ["a@b.c0m", "invalid"],
    ["josé@correo.es", "invalid"],
    ["\u212Aate@x.com", "invalid"], // KELVIN SIGN would lower-case to "k"
    ["x".repeat(65) + "@b.com", "invalid"],
    ["a@" + "b".repeat(64) + ".com", "invalid"],
    ["a@" + "b.".repeat(126) + "com", "invalid"] // 257 chars
  ])("%j is %s", (raw, reason) => {
    expect(normaliseEmail(raw)).toEqual({ ok: false, reason })
  })

  it.each([
    ["test@test.com", "listed"],
    ["Example@Example.com", "listed"],
    ["a@a.com", "listed"],
    ["noreply@hotel.com", "role"],
    ["No-Reply@hotel.com", "role"],
    ["donotreply@chain.com", "role"],
    ["reservations@hotel.com", "role"],
    ["reservas@hotel.es", "role"],
    ["booking@agency.com", "role"],
    ["bookings@agency.com", "role"],
    ["info@hotel.com", "role"],
    ["noreply+bounce@hotel.com", "role"],
    ["noreply@", "role"],
    ["john@example.com", "reserved-domain"],
    ["john@example.org", "reserved-domain"],
    ["john@example.net", "reserved-domain"],
    ["john@mail.example.com", "reserved-domain"],
    ["jane@test.com", "reserved-domain"],
    ["x@invalid", "reserved-domain"],
    ["x@foo.invalid", "reserved-domain"],
    ["jsmith.123456@guest.booking.com", "ota-relay"],
    ["a1b2c3@m.expediapartnercentral.com", "ota-relay"],
    ["guest-9876@agoda-messaging.com", "ota-relay"],
    ["abcd@guest.airbnb.com", "ota-relay"],
    ["n/a", "text"],
    ["NONE", "text"]
  ])("%j is a placeholder (%s)", (raw, kind) => {
    expect(normaliseEmail(raw)).toEqual({ ok: false, reason: "placeholder", kind })
  })

  it("every listed local part, domain and address is a placeholder", () => {
    for (const local of PLACEHOLDER_EMAIL_LOCAL_PARTS) expect(normaliseEmail(`${local}@hotel.com`)).toMatchObject({ reason: "placeholder" })
    for (const d of [...PLACEHOLDER_EMAIL_DOMAINS, ...OTA_RELAY_EMAIL_DOMAINS]) expect(normaliseEmail(`ana@${d}`)).toMatchObject({ reason: "placeholder" })
    for (const e of PLACEHOLDER_EMAILS) expect(normaliseEmail(e.toUpperCase())).toMatchObject({ reason: "placeholder" })
  })
})

describe("normaliseEmail: properties", () => {
  const ws = fc.constantFrom("", " ", "\t", "\n ")

  it("accepts RFC addresses from fast-check (unless placeholders), idempotently", () => {
    fc.assert(
      fc.property(fc.emailAddress(), ws, ws, (email, before, after) => {
        const r = normaliseEmail(before + email + after)
        if (!r.ok) {
          expect(r.reason).toBe("placeholder")
          return
        }
        expect(r.email).toBe(email.toLowerCase())
        expect(normaliseEmail(r.email)).toEqual(r)
      }),
      { numRuns: 1000 }
    )
  })

  it("is case-insensitive", () => {
    fc.assert(
      fc.property(fc.emailAddress(), fc.array(fc.boolean(), { minLength: 80, maxLength: 80 }), (email, flips) => {
        const mixed = [...email].map((c, i) => (flips[i % flips.length] ? c.toUpperCase() : c)).join("")
        expect(normaliseEmail(mixed)).toEqual(normaliseEmail(email))
        expect(normaliseEmail(email.toUpperCase())).toEqual(normaliseEmail(email))
      })
    )
  })

  it("is idempotent and never throws on arbitrary strings", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary", maxLength: 300 }), (raw) => {
        const r = normaliseEmail(raw)
        if (r.ok) expect(normaliseEmail(r.email)).toEqual(r)
      }),
      { numRuns: 2000 }
    )
  })
})
