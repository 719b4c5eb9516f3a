import { describe, expect, it } from "vitest"
import fc from "fast-check"
import { ADDRESS_FIELD_LIMITS, normaliseAddress } from "../../../core/normalise/address.ts"

const cpLength = (s: string) => [...s].length
const LIMITED = Object.keys(ADDRESS_FIELD_LIMITS) as Array<keyof typeof ADDRESS_FIELD_LIMITS>

describe("normaliseAddress: examples", () => {
  it("keeps usable fields, trims them and normalises the country", () => {
    const r = normaliseAddress({
      street: "  Calle Mayor 1 ",
      city: "Madrid",
      postal_code: "28013",
      province: "Madrid",
      state: "Comunidad de Madrid",
      country: "esp"
    })
    expect(r).toEqual({
      address: { street: "Calle Mayor 1", city: "Madrid", postal_code: "28013", province: "Madrid", state: "Comunidad de Madrid", country: "ES" },
      warnings: []
    })
  })

  it("leaves omitted, null, empty and whitespace-only fields out, without warnings", () => {
    expect(normaliseAddress({ city: "Sevilla", street: "", state: "   ", province: null, country: undefined })).toEqual({
      address: { city: "Sevilla" },
      warnings: []
    })
  })

  it("returns undefined when nothing usable was sent", () => {
    expect(normaliseAddress(undefined)).toEqual({ address: undefined, warnings: [] })
    expect(normaliseAddress(null)).toEqual({ address: undefined, warnings: [] })
    expect(normaliseAddress({})).toEqual({ address: undefined, warnings: [] })
    expect(normaliseAddress({ city: "" })).toEqual({ address: undefined, warnings: [] })
  })

  it.each([["Calle Mayor 1, Madrid"], [["Calle Mayor 1"]], [42], [true]])("drops a non-object address %j", (raw) => {
    const r = normaliseAddress(raw)
    expect(r.address).toBeUndefined()
    expect(r.warnings).toEqual([{ field: "address", code: "dropped", message: expect.stringContaining("address") }])
  })

  it("drops an unrecognised country with a warning naming the value", () => {
    const r = normaliseAddress({ city: "Cair Paravel", country: "Narnia" })
    expect(r.address).toEqual({ city: "Cair Paravel" })
    expect(r.warnings).toEqual([{ field: "address.country", code: "dropped", message: expect.stringContaining("Narnia") }])
  })

  it("converts a numeric postal_code, drops other non-strings", () => {
    const r = normaliseAddress({ postal_code: 28013, city: 123, street: { line1: "x" }, state: ["CA"], province: false })
    expect(r.address).toEqual({ postal_code: "28013" })
    expect(r.warnings.map((w) => [w.field, w.code])).toEqual([
      ["address.city", "dropped"],
      ["address.street", "dropped"],
      ["address.state", "dropped"],
      ["address.province", "dropped"]
    ])
    expect(normaliseAddress({ postal_code: -1 }).warnings[0]?.code).toBe("dropped")
    expect(normaliseAddress({ postal_code: 1.5 }).warnings[0]?.code).toBe("dropped")
    expect(normaliseAddress({ postal_code: Number.NaN }).warnings[0]?.code).toBe("dropped")
  })

  it("truncates over-long fields with a warning naming the field and limit", () => {
    const r = normaliseAddress({ street: "a".repeat(301), postal_code: "1".repeat(41), city: "c".repeat(200) })
    expect(r.address).toEqual({ street: "a".repeat(300), postal_code: "1".repeat(40), city: "c".repeat(200) })
    expect(r.warnings).toEqual([
      { field: "address.street", code: "truncated", message: expect.stringMatching(/address\.street.*300/) },
      { field: "address.postal_code", code: "truncated", message: expect.stringMatching(/address\.postal_code.*40/) }
    ])
  })

  it("does not leave trailing whitespace at the cut, so the result is a fixed point", () => {
    const r = normaliseAddress({ street: "a".repeat(299) + " b" })
    expect(r.address).toEqual({ street: "a".repeat(299) })
    expect(normaliseAddress(r.address)).toEqual({ address: r.address, warnings: [] })
  })

  it("replaces lone surrogates (not storable in jsonb) with U+FFFD", () => {
    expect(normaliseAddress({ city: "Bad\uD800City" }).address).toEqual({ city: "Bad\uFFFDCity" })
  })

  it("truncates by code points without splitting a surrogate pair", () => {
    const r = normaliseAddress({ city: "😀".repeat(250), postal_code: "1".repeat(39) + "😀😀" })
    expect(r.address?.city).toBe("😀".repeat(200))
    expect(r.address?.postal_code).toBe("1".repeat(39) + "😀")
  })

  it("drops unknown sub-keys with a warning, and bounds their number", () => {
    const r = normaliseAddress({ city: "Roma", line2: "Scala B", "bad key": 1 })
    expect(r.address).toEqual({ city: "Roma" })
    expect(r.warnings.map((w) => [w.field, w.code])).toEqual([
      ["address.line2", "dropped"],
      ['address["bad key"]', "dropped"]
    ])
    const many = Object.fromEntries(Array.from({ length: 1000 }, (_, i) => [`k${i}`, i]))
    expect(normaliseAddress(many).warnings).toHaveLength(11)
  })

  it("does not let __proto__ from JSON pollute anything", () => {
    const r = normaliseAddress(JSON.parse('{"__proto__": {"city": "x"}, "country": "FR"}'))
    expect(r.address).toEqual({ country: "FR" })
    expect(Object.getPrototypeOf(r.address)).toBe(Object.prototype)
    expect(r.warnings.map((w) => w.code)).toEqual(["dropped"])
  })
})

describe("normaliseAddress: properties", () => {
  it("never throws for any input and only reports address paths", () => {
    fc.assert(
      fc.property(fc.anything({ withNullPrototype: true, withBoxedValues: true, withMap: true, withSet: true, withDate: true }), (raw) => {
        const r = normaliseAddress(raw)
        for (const w of r.warnings) expect(w.field.startsWith("address")).toBe(true)
      }),
      { numRuns: 1000 }
    )
  })

  it("never exceeds a limit and never leaves a lone surrogate", () => {
    // A filler puts the limit anywhere in or near the random tail, so the cut
    // lands on surrogate pairs and multi-code-point clusters. "binary" tails
    // also contain lone surrogates; "grapheme" tails contain pairs/clusters.
    const tail = fc.oneof(
      fc.string({ unit: "binary", minLength: 1, maxLength: 30 }),
      fc.string({ unit: "grapheme", minLength: 1, maxLength: 30 }),
      fc.constantFrom("😀😀😀", "\uD83D", "\uDE00x", "👩‍👩‍👧 ")
    )
    fc.assert(
      fc.property(fc.constantFrom(...LIMITED), fc.integer({ min: 0, max: 30 }), tail, fc.constantFrom("a", " ", "é"), (field, under, t, fill) => {
        const limit = ADDRESS_FIELD_LIMITS[field]
        const raw = "x" + fill.repeat(Math.max(0, limit - under - 1)) + t
        const out = normaliseAddress({ [field]: raw }).address?.[field]
        if (out !== undefined) {
          expect(cpLength(out)).toBeLessThanOrEqual(limit)
          expect(out.isWellFormed()).toBe(true)
          expect(out).toBe(out.trim())
        }
      }),
      { numRuns: 1000 }
    )
  })

  it("is idempotent and omitted fields stay omitted", () => {
    const field = fc.oneof(fc.constant(undefined), fc.constant(null), fc.string({ maxLength: 320 }), fc.constantFrom("es", "GBR", "UK", "Narnia"), fc.nat())
    const address = fc.record(
      { street: field, city: field, postal_code: field, province: field, state: field, country: field },
      { requiredKeys: [] }
    )
    fc.assert(
      fc.property(address, (raw) => {
        const first = normaliseAddress(raw)
        for (const key of Object.keys(first.address ?? {})) expect(Object.keys(raw)).toContain(key)
        expect(normaliseAddress(first.address)).toEqual({ address: first.address, warnings: [] })
      }),
      { numRuns: 1000 }
    )
  })
})
