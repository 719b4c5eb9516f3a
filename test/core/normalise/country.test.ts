import { describe, expect, it } from "vitest"
import fc from "fast-check"
import countries from "i18n-iso-countries"
import { normaliseCountry } from "../../../core/normalise/country.ts"

describe("normaliseCountry", () => {
  it.each([
    ["ES", "ES"],
    ["es", "ES"],
    [" gb ", "GB"],
    ["ESP", "ES"],
    ["gbr", "GB"],
    ["Deu", "DE"],
    ["MEX", "MX"],
    ["UK", "GB"], // ISO "exceptionally reserved" alias, common in PMS data
    ["uk", "GB"]
  ])("%j -> %s", (raw, code) => {
    expect(normaliseCountry(raw)).toBe(code)
  })

  it.each(["", "  ", "Narnia", "Spain", "ZZ", "ZZZ", "EU", "724", "E", "ESPA", "ıt", "__proto__", "toString"])(
    "%j is unrecognised",
    (raw) => {
      expect(normaliseCountry(raw)).toBeUndefined()
    }
  )

  it("maps every alpha-3 code known to i18n-iso-countries to its alpha-2", () => {
    const alpha3 = Object.entries(countries.getAlpha3Codes())
    expect(alpha3.length).toBeGreaterThanOrEqual(249)
    for (const [a3, a2] of alpha3) {
      expect(normaliseCountry(a3)).toBe(a2)
      expect(normaliseCountry(` ${a3.toLowerCase()} `)).toBe(a2)
    }
  })

  it("accepts every alpha-2 code known to i18n-iso-countries, any case", () => {
    for (const a2 of Object.keys(countries.getAlpha2Codes())) {
      expect(normaliseCountry(a2)).toBe(a2)
      expect(normaliseCountry(a2.toLowerCase())).toBe(a2)
    }
  })

  it("returns undefined or a known upper-case alpha-2, never throws", () => {
    const known = new Set(Object.keys(countries.getAlpha2Codes()))
    fc.assert(
      fc.property(fc.oneof(fc.string({ maxLength: 5 }), fc.stringMatching(/^\s*[a-zA-Z]{2,3}\s*$/)), (raw) => {
        const r = normaliseCountry(raw)
        if (r !== undefined) expect(known.has(r)).toBe(true)
        if (r !== undefined) expect(normaliseCountry(r)).toBe(r)
      }),
      { numRuns: 2000 }
    )
  })
})
