import { describe, expect, it } from "@effect/vitest"
import { Result, Schema } from "effect"
import fc from "fast-check"
import { CONTRACT_FIELDS, judgeEvent } from "../../core/website/contract.ts"
import { WebsiteEvent } from "../../schemas/websiteEvents.ts"

// The document's description of a website event (schemas/websiteEvents.ts) against the contract that judges it
// (core/website/contract.ts): the same keys at every level, and every event the contract accepts the description
// accepts too (the description may be looser: real dates and valid addresses are the contract's to judge).

const decode = Schema.decodeUnknownResult(WebsiteEvent as never, { onExcessProperty: "error" })
const describedKeys = (level?: "contact" | "consent" | "context") => {
  const fields = WebsiteEvent.fields
  const struct = level === undefined ? WebsiteEvent : (fields[level] as unknown as { schema: typeof WebsiteEvent }).schema
  return Object.keys(struct.fields).sort()
}

const mostly = <A>(good: fc.Arbitrary<A>, bad: fc.Arbitrary<unknown>) =>
  fc.oneof({ arbitrary: good as fc.Arbitrary<unknown>, weight: 20 }, { arbitrary: bad, weight: 1 })
const anything = fc.oneof(fc.string({ unit: "binary", maxLength: 12 }), fc.integer(), fc.boolean(), fc.constant(null))
const name = fc.constantFrom("cart.viewed", "booking.step_completed", "a", "checkout.completed", "x.y.z.w")
const instant = fc.constantFrom("2026-11-23T10:00Z", "2026-11-23T10:00:00.123+02:00", "2026-11-23T10:00:00Z", "2026-02-30T10:00:00Z")
const day = fc.constantFrom("2026-12-01", "2026-12-04", "2026-02-30")
const words = fc.string({ unit: "grapheme", minLength: 1, maxLength: 30 })
const event = fc.record({
  event: mostly(name, anything),
  occurred_at: mostly(instant, anything),
  idempotency_key: mostly(words, anything),
  test: mostly(fc.boolean(), anything),
  contact: mostly(fc.record({
    email: fc.constantFrom("ana@gmail.com", "ANA@Gmail.com", "noreply@booking.com", "nope"),
    phone: fc.constantFrom("+34 600 111 222", "+34600111222", "600", "+1 (212) 555-0100"),
    first_name: words, last_name: words, language: fc.constantFrom("es", "pt-BR", "en_GB", "es-419", "spanish")
  }, { requiredKeys: [] }), anything),
  consent: mostly(fc.record({
    email_marketing: fc.boolean(), text: fc.string({ minLength: 8, maxLength: 40 }), captured_at: instant,
    language: fc.constantFrom("es", "en"), form_id: words
  }, { requiredKeys: ["email_marketing"] }), anything),
  context: mostly(fc.record({
    hotel_id: fc.constantFrom("0f8fad5b-d9cb-469f-a165-70867728950e", "00000000-0000-0000-0000-000000000000", "not-a-uuid"),
    hotel_code: words, hotel_name: words, stage: fc.constantFrom("dates", "room", "payment", "checkout"),
    check_in: day, check_out: day, adults: fc.integer({ min: -1, max: 31 }), children: fc.integer({ min: 0, max: 31 }),
    rooms: fc.integer({ min: 0, max: 21 }), room_name: words, rate_name: words, value: fc.double({ min: -1, max: 2e7, noNaN: true }),
    currency: fc.constantFrom("EUR", "eur", "EURO"), cart_id: words, session_id: words,
    resume_url: fc.constantFrom("https://hotel.example/cart/1", "http://hotel.example/cart"), page_url: words, referrer: words
  }, { requiredKeys: [] }), anything),
  properties: mostly(fc.dictionary(fc.constantFrom("step", "room_type", "Bad Key", "n"), fc.oneof(words, fc.integer(), fc.boolean(), fc.constant(null)), { maxKeys: 4 }), anything)
}, { requiredKeys: ["event"] })

describe("the documented website event", () => {
  it("names the contract's keys at every level (unknown keys are refused by both)", () => {
    expect(describedKeys()).toEqual([...CONTRACT_FIELDS.event].sort())
    for (const level of ["contact", "consent", "context"] as const) expect(describedKeys(level), level).toEqual([...CONTRACT_FIELDS[level]].sort())
  })

  it("accepts every event the contract accepts", () => {
    let accepted = 0
    fc.assert(fc.property(event, (e) => {
      if (!judgeEvent(e).ok) return
      accepted++
      const r = decode(e) as Result.Result<unknown, Schema.SchemaError>
      expect(Result.isSuccess(r), Result.isFailure(r) ? String(r.failure) : "").toBe(true)
    }), { numRuns: 3_000 })
    expect(accepted).toBeGreaterThan(50)
  })
})
