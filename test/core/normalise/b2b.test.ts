import { describe, expect, it } from "vitest"
import fc from "fast-check"
import { codeOfKind, isFreeMailDomain, normaliseCode, normaliseDomain, normaliseIata } from "../../../core/normalise/b2b.ts"

describe("normaliseCode", () => {
  it.each([
    ["  vsol-mad ", "VSOL-MAD"],
    ["Acme\t 2027\nRate", "ACME 2027 RATE"],
    ["ＶＳＯＬ１０", "VSOL10"], // full-width forms fold to ASCII
    [" \t ", ""]
  ])("%j -> %j", (raw, code) => expect(normaliseCode(raw)).toBe(code))

  it("is idempotent, never leaves outer or double spaces, and ignores case and spacing differences", () => {
    fc.assert(fc.property(fc.string({ maxLength: 40 }), (s) => {
      const once = normaliseCode(s)
      expect(normaliseCode(once)).toBe(once)
      expect(once).not.toMatch(/^\s|\s$|\s\s/u)
      expect(normaliseCode(` ${s.toLowerCase()}  `)).toBe(normaliseCode(s.toLowerCase()))
    }))
  })
})

describe("normaliseIata", () => {
  it.each([
    ["78212345", "78212345"], ["7821 2345", "78212345"], ["78-212-345", "78212345"], ["7821234", "7821234"],
    ["782123", undefined], ["782123456", undefined], ["78A12345", undefined], ["", undefined], ["-78212345", undefined]
  ])("%j -> %j", (raw, digits) => expect(normaliseIata(raw)).toBe(digits))

  it("codeOfKind applies it to IATA numbers only; other kinds refuse empty and over-long codes", () => {
    expect(codeOfKind("iata", "7821 2345")).toBe("78212345")
    expect(codeOfKind("agency_code", "7821 2345")).toBe("7821 2345")
    expect(codeOfKind("promo_code", "   ")).toBeUndefined()
    expect(codeOfKind("rate_code", "X".repeat(101))).toBeUndefined()
  })
})

describe("email domains", () => {
  it.each([
    ["ViajesSol.ES", "viajessol.es"], ["@acme.co.uk", "acme.co.uk"], ["acme.com.", "acme.com"],
    ["localhost", undefined], ["acme", undefined], ["ac me.com", undefined], ["-acme.com", undefined], ["acme.c0m", undefined]
  ])("%j -> %j", (raw, domain) => expect(normaliseDomain(raw)).toBe(domain))

  it("knows the free-mail providers, whatever the case", () => {
    for (const d of ["gmail.com", "Hotmail.es", "outlook.com", "icloud.com", "yahoo.co.uk"]) expect(isFreeMailDomain(d), d).toBe(true)
    for (const d of ["acme.com", "viajessol.es", "booking.com"]) expect(isFreeMailDomain(d), d).toBe(false)
  })
})
