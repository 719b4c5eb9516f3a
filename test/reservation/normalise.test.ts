import { describe, expect, it } from "@effect/vitest"
import { Schema } from "effect"
import { ReservationRequest } from "../../schemas/reservation.ts"
import { toUpsertCommand } from "../../src/reservation/normalise.ts"

const decode = Schema.decodeUnknownSync(ReservationRequest)
const base = { reservation_id: "R1", hotel_code: "H", check_in: "2026-01-01", check_out: "2026-01-03" }

describe("toUpsertCommand", () => {
  it("normalises each guest's identity and profile, keeping guest order", () => {
    const cmd = toUpsertCommand(decode({
      ...base,
      currency: "eur",
      guests: [
        { first_name: " Ana ", phone: "0034 600 11 12 22", email: " Ana@Gmail.COM", nationality: "esp", language: "pt_BR", opt_in_status: "opted_in" },
        { first_name: "Kid" }
      ]
    }), "hotel-1")
    expect(cmd.hotel_id).toBe("hotel-1")
    expect(cmd.fields.currency).toBe("EUR")
    expect(cmd.guests[0]).toMatchObject({
      first_name: "Ana", phone: "+34600111222", email: "ana@gmail.com", nationality: "ES", language: "pt-br",
      whatsapp_marketing_consent: true, is_holder: false
    })
    expect(cmd.guests[1]).toMatchObject({ first_name: "Kid", phone: undefined, email: undefined })
    expect(cmd.warnings).toEqual([])
  })

  it("keeps absent fields absent and null fields null, so the actor can tell 'not sent' from 'clear'", () => {
    const cmd = toUpsertCommand(decode({ ...base, comments: null, guests: [] }), "h")
    expect("comments" in cmd.fields && cmd.fields.comments === null).toBe(true)
    expect("agency" in cmd.fields).toBe(false)
    expect(cmd.stays).toBeUndefined()
  })

  it("defaults an extra's quantity to 1", () => {
    const cmd = toUpsertCommand(decode({ ...base, guests: [], extras: [{ name: "Spa", amount: 5 }, { name: "Bar", amount: 1, quantity: 3 }] }), "h")
    expect(cmd.extras?.map((e) => e.quantity)).toEqual([1, 3])
  })

  it("an explicit whatsapp_marketing_consent wins over the legacy opt_in_status", () => {
    const cmd = toUpsertCommand(decode({ ...base, guests: [{ first_name: "A", opt_in_status: "opted_in", whatsapp_marketing_consent: false }] }), "h")
    expect(cmd.guests[0]!.whatsapp_marketing_consent).toBe(false)
  })
})
