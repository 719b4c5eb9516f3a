import { describe, expect, it } from "vitest"
import { attributionCandidates } from "../../../actors/reservation/attribution.ts"

const row = (overrides: Partial<Parameters<typeof attributionCandidates>[0]> = {}) =>
  ({ agency_code: null, metadata: null, stays: [], rate_plan: null, ...overrides })

describe("attributionCandidates", () => {
  it("lists the codes in the spec's order: agency code, promo code, stay rate codes then rate plan, agency ids", () => {
    const got = attributionCandidates(row({
      agency_code: " vsol-mad ",
      metadata: { promo_code: "vsol10", agency_id: "OPERA-TA-88231", iata: "78 21 23 45" },
      stays: [{ rate_code: "bar" }, { rate_code: "vsolnr" }, { rate_code: "BAR" }],
      rate_plan: "corp"
    }))
    expect(got.map((c) => [c.kind, c.code, c.rule])).toEqual([
      ["agency_code", "VSOL-MAD", "agency_code"],
      ["promo_code", "VSOL10", "promo_code"],
      ["rate_code", "BAR", "rate_code"],
      ["rate_code", "VSOLNR", "rate_code"],
      ["rate_code", "CORP", "rate_code"],
      ["external_id", "OPERA-TA-88231", "agency_id"],
      ["iata", "78212345", "agency_id"]
    ])
    expect(got.map((c) => c.ord)).toEqual([0, 1, 2, 3, 4, 5, 6])
  })

  it("tries a numeric agency code or agency id as an IATA number too, and ignores what is no code", () => {
    expect(attributionCandidates(row({ agency_code: "78212345", metadata: { agency_id: 1234567, promo_code: { x: 1 } }, stays: [null, {}] }))
      .map((c) => [c.kind, c.code])).toEqual([
        ["agency_code", "78212345"], ["external_id", "1234567"], ["iata", "1234567"], ["iata", "78212345"]
      ])
    expect(attributionCandidates(row())).toEqual([])
  })
})
