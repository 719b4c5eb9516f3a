import { describe, expect, it } from "@effect/vitest"
import fc from "fast-check"
import { consentOutcome } from "../../actors/website/consent.ts"
import { envelopeOf, EVENT_NAME, judgeEvent, occurredAtProblem } from "../../core/website/contract.ts"
import { kindOf, normaliseOrigin, parseSignature, signPayload, verifySignature } from "../../core/website/credentials.ts"
import { applyMapping, mappingIssues } from "../../core/website/mapping.ts"
import { routeLabel } from "../../src/http/metrics.ts"

// The pure parts of website events: the contract, the envelope, signatures, origins, mapping and consent rules.

const valid = { event: "cart.abandoned", contact: { email: "Ana.Lopez@Hotel-Guests.net", phone: "+34 612 345 678" }, context: { cart_id: "c1", stage: "payment", check_in: "2027-05-01", check_out: "2027-05-03", adults: 2, value: 310.5, currency: "EUR", resume_url: "https://book.hotel.com/r" }, properties: { promo: "SPRING", nights: 2, member: true } }

describe("the website-event contract", () => {
  it("accepts a full valid event and normalises the contact", () => {
    const r = judgeEvent(valid)
    expect(r.ok).toBe(true)
    if (r.ok) expect(r.event.contact).toMatchObject({ email: "ana.lopez@hotel-guests.net", phone: "+34612345678" })
  })

  it("refuses unknown keys at every level, naming each", () => {
    const r = judgeEvent({ ...valid, x: 1, contact: { ...valid.contact, y: 1 }, context: { ...valid.context, z: 1 }, consent: { email_marketing: true, w: 1 } })
    expect(r.ok).toBe(false)
    if (!r.ok) expect(r.issues.map((i) => i.field).sort()).toEqual(["consent.w", "contact.y", "context.z", "x"])
  })

  it("applies every field rule", () => {
    const bad = {
      event: "a.b.c.d.e", occurred_at: "2026-01-01T10:00:00", idempotency_key: "", test: "yes",
      contact: { email: "x".repeat(250) + "@a.com", phone: "12", first_name: "", language: "spanish" },
      consent: { text: "short", captured_at: "yesterday" },
      context: { hotel_id: "nope", stage: "cart", check_in: "2027-05-03", check_out: "2027-05-01", adults: 1.5, children: -1, rooms: 0, value: -1, currency: "eur", resume_url: "http://insecure.example.org", cart_id: "" },
      properties: { "Bad-Name": 1, long: "x".repeat(501), nested: { a: 1 } }
    }
    const r = judgeEvent(bad)
    expect(r.ok).toBe(false)
    if (!r.ok) {
      expect(r.issues.map((i) => i.field).sort()).toEqual([
        "consent.captured_at", "consent.email_marketing", "consent.text", "contact.email", "contact.first_name", "contact.language",
        "contact.phone", "context.adults", "context.cart_id", "context.check_out", "context.children", "context.currency", "context.hotel_id",
        "context.resume_url", "context.rooms", "context.stage", "context.value", "event", "idempotency_key", "occurred_at",
        "properties.Bad-Name", "properties.long", "properties.nested", "test"
      ])
    }
  })

  it("more than 25 properties are refused", () => {
    const r = judgeEvent({ event: "x", properties: Object.fromEntries(Array.from({ length: 26 }, (_, i) => [`p${i}`, i])) })
    expect(r.ok).toBe(false)
  })

  it("marks placeholder and role identities as not a person (rule 1)", () => {
    for (const email of ["noreply@hotel-guests.net", "reservas@hotel.es", "test@test.com"]) {
      const r = judgeEvent({ event: "lead.captured", contact: { email } })
      expect(r.ok && r.event.not_person, email).toBe("email")
    }
  })

  it("event names: 1 to 4 lowercase dotted segments (property)", () => {
    const segment = fc.stringMatching(/^[a-z][a-z0-9_]{0,31}$/)
    fc.assert(fc.property(fc.array(segment, { minLength: 1, maxLength: 4 }), (parts) => {
      const name = parts.join(".")
      expect(judgeEvent({ event: name }).ok).toBe(name.length <= 64)
    }))
    fc.assert(fc.property(fc.string(), (s) => {
      if (!EVENT_NAME.test(s) || s.length > 64) expect(judgeEvent({ event: s }).ok).toBe(false)
    }))
  })

  it("never throws, whatever the value (property)", () => {
    fc.assert(fc.property(fc.anything(), (v) => {
      const r = judgeEvent(v)
      expect(typeof r.ok).toBe("boolean")
      envelopeOf(v, true)
    }), { numRuns: 500 })
  })

  it("occurred_at: at most 7 days old, at most 5 minutes ahead", () => {
    const now = Date.parse("2026-11-22T12:00:00Z")
    expect(occurredAtProblem("2026-11-15T11:59:00Z", now)).toBe("occurred_at_too_old")
    expect(occurredAtProblem("2026-11-15T12:01:00Z", now)).toBeUndefined()
    expect(occurredAtProblem("2026-11-22T12:06:00Z", now)).toBe("occurred_at_in_future")
    expect(occurredAtProblem("2026-11-22T14:04:00+02:00", now)).toBeUndefined()
  })

  it("the envelope: one event, { events: [1..50] }, an array only for a webhook", () => {
    expect(envelopeOf({ event: "x" }, false).kind).toBe("single")
    expect(envelopeOf({ events: [{}] }, false).kind).toBe("batch")
    expect(envelopeOf([{}], false)).toMatchObject({ code: "invalid_body" })
    expect(envelopeOf([{}], true).kind).toBe("batch")
    expect(envelopeOf({ events: [] }, false)).toMatchObject({ code: "batch_empty" })
    expect(envelopeOf({ events: Array(51).fill({}) }, false)).toMatchObject({ code: "batch_too_large" })
    expect(envelopeOf({ events: [{}], x: 1 }, false)).toMatchObject({ code: "invalid_body" })
    expect(envelopeOf("text", false)).toMatchObject({ code: "invalid_body" })
  })
})

describe("credentials", () => {
  it("neither the webhook token nor a browser key in the query becomes a metrics label", () => {
    expect(routeLabel(`/api/v1/website-events/hooks/svc_wh_${"a".repeat(40)}`)).toBe("/api/v1/website-events/hooks/:token")
    expect(routeLabel(`/api/v1/website-events?key=svc_pk_${"a".repeat(40)}`)).toBe("/api/v1/website-events")
  })

  it("key kinds by prefix", () => {
    expect(kindOf("svc_sk_" + "a".repeat(40))).toBe("server")
    expect(kindOf("svc_pk_" + "a".repeat(40))).toBe("browser")
    expect(kindOf("svc_wh_" + "a".repeat(40))).toBe("webhook")
    expect(kindOf("svckr_" + "a".repeat(40))).toBeUndefined()
  })

  it("origins are exact: scheme, host, port; no path, no wildcard", () => {
    expect(normaliseOrigin("https://Shop.Hotel.com")).toBe("https://shop.hotel.com")
    expect(normaliseOrigin("https://shop.hotel.com:443")).toBe("https://shop.hotel.com")
    expect(normaliseOrigin("http://localhost:8080")).toBe("http://localhost:8080")
    for (const bad of ["https://*.hotel.com", "https://hotel.com/path", "hotel.com", "ftp://hotel.com", "https://hotel.com?x=1"]) expect(normaliseOrigin(bad), bad).toBeUndefined()
  })

  it("a signature verifies for any live secret and any v1, within 5 minutes either way (property)", () => {
    fc.assert(fc.property(fc.uint8Array({ maxLength: 200 }), fc.integer({ min: -600, max: 600 }), (body, skew) => {
      const now = 1_800_000_000
      const t = now + skew
      const header = `t=${t},v1=${signPayload("whsec_old", t, body)},v1=${"0".repeat(64)}`
      const verdict = verifySignature(header, body, ["whsec_new", "whsec_old"], now)
      expect(verdict).toBe(Math.abs(skew) > 300 ? "signature_expired" : "ok")
      expect(verifySignature(`t=${now},v1=${signPayload("whsec_other", now, body)}`, body, ["whsec_new"], now)).toBe("signature_invalid")
    }))
    expect(verifySignature(undefined, new Uint8Array(), ["s"], 0)).toBe("signature_missing")
    expect(parseSignature("v1=abc")).toBeUndefined()
  })
})

describe("webhook mapping", () => {
  const payload = { a: { b: [{ c: " Ana@Hotel-Guests.net " }] }, status: "Confirmed", n: "3", yes: "1", day: "2027-01-02T10:00:00Z", ts: 1_800_000_000 }

  it("path, value and template; every transform; the word map", () => {
    const { candidate, warnings } = applyMapping({
      "contact.email": { path: "a.b[0].c", transform: "trim" },
      event: { template: "booking.{{status}}", transform: "lower" },
      "context.stage": { value: "payment" },
      "context.adults": { path: "n", transform: "number" },
      "properties.flag": { path: "yes", transform: "boolean" },
      "context.check_in": { path: "day", transform: "date" },
      occurred_at: { path: "ts", transform: "datetime" },
      "properties.big": { path: "status", transform: "upper" },
      "properties.kind": { path: "status", map: { confirmed: "firm" } }
    }, payload)
    expect(warnings).toEqual([])
    expect(candidate).toEqual({
      contact: { email: "Ana@Hotel-Guests.net" }, event: "booking.confirmed", occurred_at: new Date(1_800_000_000_000).toISOString(),
      context: { stage: "payment", adults: 3, check_in: "2027-01-02" }, properties: { flag: true, big: "CONFIRMED", kind: "firm" }
    })
  })

  it("each warning reason", () => {
    const { warnings } = applyMapping({
      event: { path: "missing.path" },
      "context.adults": { path: "status", transform: "number" },
      "context.stage": { path: "status", map: { pending: "room" } },
      "properties.x": { template: "{{__proto__.polluted}}" },
      "properties.y": { path: "a" }
    }, payload)
    expect(warnings.map((w) => [w.target, w.reason])).toEqual([
      ["event", "path_not_found"], ["context.adults", "transform_failed"], ["context.stage", "unsupported_value"],
      ["properties.x", "unsafe_path"], ["properties.y", "unsupported_value"]
    ])
    expect(({} as any).polluted).toBeUndefined()
  })

  it("a mapping is checked whole when saved", () => {
    expect(mappingIssues({ event: { path: "a" } })).toEqual([])
    expect(mappingIssues({ nope: { path: "a" } })).toHaveLength(1)
    expect(mappingIssues({ event: { path: "a", value: "b" } })).toHaveLength(1)
    expect(mappingIssues({ event: { path: "constructor" } })).toHaveLength(1)
    expect(mappingIssues({ event: { value: "x", transform: "reverse" } })).toHaveLength(1)
  })

  it("never throws and never pollutes prototypes, whatever the payload (property)", () => {
    const before = Object.getOwnPropertyNames(Object.prototype).join()
    fc.assert(fc.property(fc.jsonValue(), fc.string(), (v, path) => {
      applyMapping({ event: { path }, "properties.p": { template: `x{{${path}}}` } }, v)
      expect(Object.getOwnPropertyNames(Object.prototype).join()).toBe(before)
    }), { numRuns: 300 })
  })
})

describe("consent (rules 3 and 4)", () => {
  const now = Date.parse("2026-11-22T12:00:00Z")
  const fresh = { email_marketing: true, text: "Send me offers by email", captured_at: "2026-11-22T11:00:00Z" }
  it("honoured only with text and a fresh captured_at, from a source that honours, for a contact who never opted out", () => {
    expect(consentOutcome(fresh, "honour", false, now)).toBe("honoured")
    expect(consentOutcome({ email_marketing: true }, "honour", false, now)).toBe("consent_evidence_missing")
    expect(consentOutcome({ ...fresh, captured_at: "2026-11-14T11:00:00Z" }, "honour", false, now)).toBe("consent_evidence_stale")
    expect(consentOutcome(fresh, "honour", true, now)).toBe("consent_ignored_opted_out")
    expect(consentOutcome(fresh, "ignore", false, now)).toBe("consent_source_ignores")
    expect(consentOutcome({ email_marketing: false }, "honour", false, now)).toBeUndefined()
    expect(consentOutcome(undefined, "honour", false, now)).toBeUndefined()
  })
})
