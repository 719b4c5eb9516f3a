import { describe, expect, it } from "vitest"
import { codesToRegister, type DealRow, newDeal, patchDeal } from "../../../actors/b2b/deals.ts"
import type { DealColumns } from "../../../actors/b2b/protocol.ts"

const columns: DealColumns = {
  contact_id: null, name: "ACME rate", type: "corporate_rate", stage: "negotiation", lost_reason: null, hotel_ids: [],
  arrival: "2027-01-01", departure: "2027-12-31", room_nights: null, value_amount: null, value_currency: null,
  probability: null, expected_close: null, rate_codes: ["acme 27", "ACME-VIP"], external_id: null, owner_user_id: null
}
const deal = (overrides: Partial<DealRow> = {}): DealRow => ({ ...newDeal("d1", "a1", columns, "2026-11-01T00:00:00.000Z"), ...overrides })

describe("patchDeal", () => {
  it("moves open stages freely and closes the deal once when it is won or lost", () => {
    const back = patchDeal(deal(), { stage: "qualified" }, "now")
    expect(back).toMatchObject({ ok: true, becameWon: false, deal: { stage: "qualified", closed_at: null, version: 2 } })
    expect(patchDeal(deal(), { stage: "won" }, "now")).toMatchObject({ ok: true, becameWon: true, deal: { stage: "won", closed_at: "now" } })
    expect(patchDeal(deal(), { stage: "lost", lost_reason: "price" }, "now")).toMatchObject({ ok: true, becameWon: false, deal: { closed_at: "now", lost_reason: "price" } })
  })

  it("keeps won and lost final, but lets other fields of a closed deal change", () => {
    const won = deal({ stage: "won", closed_at: "then" })
    expect(patchDeal(won, { stage: "lost" }, "now")).toMatchObject({ ok: false, code: "DEAL_CLOSED", field: "stage" })
    expect(patchDeal(won, { stage: "won", name: "Renamed" }, "now")).toMatchObject({ ok: true, becameWon: false, deal: { name: "Renamed", closed_at: "then" } })
  })

  it("checks the dates after merging (a patch may send only one of them)", () => {
    expect(patchDeal(deal(), { departure: "2026-12-31" }, "now")).toMatchObject({ ok: false, code: "INVALID_DATES", field: "departure" })
    expect(patchDeal(deal(), { arrival: null }, "now")).toMatchObject({ ok: true })
  })
})

describe("codesToRegister", () => {
  it("registers each rate code of a won corporate-rate deal at each of its hotels, valid over the contract", () => {
    expect(codesToRegister(deal())).toEqual([])
    expect(codesToRegister(deal({ stage: "won", type: "group" }))).toEqual([])
    expect(codesToRegister(deal({ stage: "won" }))).toEqual([
      { kind: "rate_code", code: "ACME 27", display: "acme 27", hotel_id: null, valid_from: "2027-01-01", valid_to: "2027-12-31", field: "rate_codes[0]" },
      { kind: "rate_code", code: "ACME-VIP", display: "ACME-VIP", hotel_id: null, valid_from: "2027-01-01", valid_to: "2027-12-31", field: "rate_codes[1]" }
    ])
    expect(codesToRegister(deal({ stage: "won", hotel_ids: ["h1", "h2"], rate_codes: ["X"] })).map((c) => c.hotel_id)).toEqual(["h1", "h2"])
  })
})
