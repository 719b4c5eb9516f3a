import { describe, expect, it } from "vitest"
import fc from "fast-check"
import { getCountries, getExampleNumber, parsePhoneNumberFromString } from "libphonenumber-js/max"
import examples from "libphonenumber-js/mobile/examples"
import { normalisePhone } from "../../../core/normalise/phone.ts"

// libphonenumber's own example numbers that our placeholder data deliberately
// rejects: they are the numbers people copy from documentation.
const EXAMPLES_THAT_ARE_PLACEHOLDERS: Record<string, string> = {
  CI: "ascending-sequence", // +225 0123456789
  JP: "ascending-sequence", // +81 90 1234 5678
  KR: "trailing-zeros", // +82 10 2000 0000
  MY: "ascending-sequence", // +60 12 345 6789
  US: "nanp-fictional-555-01xx" // +1 201 555 0123
}

const exampleNumbers = getCountries().flatMap((country) => {
  const n = getExampleNumber(country, examples)
  return n === undefined ? [] : [{ country, e164: n.number as string, international: n.formatInternational() }]
})
const usableExamples = exampleNumbers.filter((e) => !(e.country in EXAMPLES_THAT_ARE_PLACEHOLDERS))

describe("normalisePhone: real numbers", () => {
  it.each([
    ["ES mobile", "+34 612 34 56 78", "+34612345678"],
    ["ES mobile, dotted", "+34.600.11.12.22", "+34600111222"],
    ["UK mobile", "+44 7911 123456", "+447911123456"],
    ["UK mobile with (0)", "+44 (0) 7911 123456", "+447911123456"],
    ["US", "+1 (202) 456-1111", "+12024561111"],
    ["US 555 outside 01xx", "+1 212 555 0200", "+12125550200"],
    ["DE landline", "+49 30 901820", "+4930901820"],
    ["DE mobile", "0049 151 2345 6789", "+4915123456789"],
    ["MX", "+52 55 1234 5678", "+525512345678"],
    ["00 prefix", "0034 600 111 222", "+34600111222"],
    ["digits only, valid with +", "34600111222", "+34600111222"],
    ["surrounding whitespace", "  +34600111222\t", "+34600111222"]
  ])("%s: %s", (_, raw, e164) => {
    expect(normalisePhone(raw)).toEqual({ ok: true, e164 })
  })

  it("formatting variants give the same E.164", () => {
    for (const raw of ["+34 600-11.12(22)", "+34 (600) 111 222", "+34/600/111/222", "+34-600-111-222", "0034600111222"]) {
      expect(normalisePhone(raw)).toEqual({ ok: true, e164: "+34600111222" })
    }
  })

  it("every libphonenumber example number round-trips (bar the listed placeholders)", () => {
    expect(usableExamples.length).toBeGreaterThan(200)
    for (const { e164, international } of usableExamples) {
      expect(normalisePhone(e164)).toEqual({ ok: true, e164 })
      expect(normalisePhone(international)).toEqual({ ok: true, e164 })
    }
    for (const [country, kind] of Object.entries(EXAMPLES_THAT_ARE_PLACEHOLDERS)) {
      const example = exampleNumbers.find((e) => e.country === country)
      expect(example && normalisePhone(example.e164)).toEqual({ ok: false, reason: "placeholder", kind })
    }
  })
})

describe("normalisePhone: rejections", () => {
  it.each([
    ["", "empty"],
    ["   ", "empty"],
    [" ( ) - ", "empty"],
    ["+", "empty"],
    ["600111222", "invalid"], // no country code; "+600111222" is not valid either
    ["+34 600 111", "invalid"],
    ["+34 600 111 222 ext 5", "invalid"],
    ["tel:+34600111222", "invalid"],
    ["+52 1 55 1234 5678", "invalid"], // pre-2019 Mexican mobile prefix, rejected by libphonenumber
    ["+0034600111222", "invalid"],
    ["+" + "1".repeat(10) + "2".repeat(60), "invalid"]
  ])("%j is %s", (raw, reason) => {
    expect(normalisePhone(raw)).toEqual({ ok: false, reason })
  })

  it.each([
    ["+00000000", "repeated-digit"],
    ["0", "text"],
    ["000000000", "repeated-digit"],
    ["+11111111111", "repeated-digit"],
    ["+34 000 000 000", "repeated-digit"],
    ["+34 999 999 999", "repeated-digit"],
    ["+34 600 000 000", "trailing-zeros"],
    ["123456789", "ascending-sequence"],
    ["+34 123 456 789", "ascending-sequence"],
    ["+1 234 567 8901", "ascending-sequence"],
    ["+34 987 654 321", "descending-sequence"],
    ["+1 212 555 0100", "nanp-fictional-555-01xx"],
    ["+1 (415) 555-0199", "nanp-fictional-555-01xx"],
    ["+44 7700 900123", "uk-ofcom-drama-mobile"],
    ["+44 20 7946 0018", "uk-ofcom-drama-london"],
    ["+44 1632 960123", "uk-ofcom-drama-1632"],
    ["n/a", "text"],
    ["NONE", "text"],
    ["-", "text"]
  ])("%j is a placeholder (%s)", (raw, kind) => {
    expect(normalisePhone(raw)).toEqual({ ok: false, reason: "placeholder", kind })
  })

  it("libphonenumber alone would accept some placeholders", () => {
    expect(parsePhoneNumberFromString("+34600000000")?.isValid()).toBe(true)
    expect(parsePhoneNumberFromString("+12125550100")?.isValid()).toBe(true)
  })
})

describe("normalisePhone: properties", () => {
  const separator = fc.constantFrom("", " ", "-", ".", "(", ")", "/", "  ")

  it("inserting separators between digits never changes the result", () => {
    fc.assert(
      fc.property(fc.constantFrom(...usableExamples), fc.array(separator, { minLength: 20, maxLength: 20 }), (ex, seps) => {
        const digits = ex.e164.slice(1)
        const formatted = "+" + [...digits].map((d, i) => (seps[i] ?? "") + d).join("")
        expect(normalisePhone(formatted)).toEqual({ ok: true, e164: ex.e164 })
        expect(normalisePhone("00" + formatted.slice(1))).toEqual({ ok: true, e164: ex.e164 })
      })
    )
  })

  it("is idempotent: an accepted E.164 normalises to itself", () => {
    const phoneish = fc.stringMatching(/^(?:\+|00)?[0-9 ().-]{6,20}$/)
    fc.assert(
      fc.property(fc.oneof(phoneish, fc.string()), (raw) => {
        const r = normalisePhone(raw)
        if (r.ok) {
          expect(r.e164).toMatch(/^\+[1-9]\d{6,14}$/)
          expect(normalisePhone(r.e164)).toEqual(r)
        }
      }),
      { numRuns: 2000 }
    )
  })

  it("never throws, whatever the input", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary", maxLength: 100 }), (raw) => {
        const r = normalisePhone(raw)
        if (!r.ok) expect(["empty", "invalid", "placeholder"]).toContain(r.reason)
      })
    )
    expect(normalisePhone(42 as unknown as string)).toEqual({ ok: false, reason: "invalid" })
  })
})
