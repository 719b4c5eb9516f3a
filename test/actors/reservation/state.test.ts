import { describe, expect, it } from "@effect/vitest"
import fc from "fast-check"
import type { UpsertReservation } from "../../../actors/reservation/protocol.ts"
import { bookingEventFor, guestStageOf, mergeReservation, nightsBetween, guestEventFor } from "../../../actors/reservation/state.ts"
import { ReservationStatuses } from "../../../schemas/reservation.ts"

const command = (fields: Partial<UpsertReservation["fields"]> = {}, extra: Partial<UpsertReservation> = {}): UpsertReservation => ({
  external_id: "R1", hotel_id: "H1", guests: [], warnings: [],
  fields: { check_in: "2026-01-10", check_out: "2026-01-12", ...fields }, ...extra
})

describe("reservation state", () => {
  it("derives the guest stage from the status", () => {
    expect(ReservationStatuses.map(guestStageOf)).toEqual(["pre-arrival", "pre-arrival", "pre-arrival", "none", "none", "in-house", "post-stay"])
  })

  it("computes nights across month ends and DST changes", () => {
    expect(nightsBetween("2026-03-28", "2026-04-02")).toBe(5)
    expect(nightsBetween("2026-10-24", "2026-10-26")).toBe(2)
    expect(nightsBetween("2026-12-31", "2026-12-31")).toBe(0)
  })

  it("names the booking event: created, updated, or cancelled when entering cancelled", () => {
    expect(bookingEventFor(undefined, "confirmed")).toBe("booking.created")
    expect(bookingEventFor(undefined, "cancelled")).toBe("booking.cancelled")
    expect(bookingEventFor("confirmed", "cancelled")).toBe("booking.cancelled")
    expect(bookingEventFor("cancelled", "cancelled")).toBe("booking.updated")
    expect(bookingEventFor("confirmed", "checked_in")).toBe("booking.updated")
  })

  it("defaults a new reservation to confirmed, source api, version 1", () => {
    const r = mergeReservation(undefined, "id-1", command())
    expect(r).toMatchObject({ id: "id-1", status: "confirmed", source: "api", guest_stage: "pre-arrival", nights: 2, version: 1, stays: [], extras: [] })
  })

  it("keeps every field an update does not send, replaces the ones it sends, and clears on null", () => {
    const first = mergeReservation(undefined, "id-1", command({ amount: 10, currency: "EUR", agency: "A", status: "pending" }, { stays: [{ start_date: "2026-01-10", end_date: "2026-01-12" }] }))
    fc.assert(fc.property(
      fc.record({ amount: fc.option(fc.double({ noNaN: true }), { nil: undefined }), agency: fc.option(fc.constantFrom("B", null), { nil: undefined }) }, { requiredKeys: [] }),
      (sent) => {
        const next = mergeReservation(first, "ignored", command(sent))
        expect(next.id).toBe("id-1")
        expect(next.version).toBe(2)
        expect(next.currency).toBe("EUR")
        expect(next.status).toBe("pending")
        expect(next.stays).toEqual(first.stays)
        expect(next.amount).toBe(sent.amount === undefined ? 10 : sent.amount)
        expect(next.agency).toBe(sent.agency === undefined ? "A" : sent.agency)
      }
    ))
  })

  it("a move into checked-in or checked-out is also the guest's stay event; staying there is not", () => {
    expect(guestEventFor("confirmed", "checked_in")).toBe("guest.checked_in")
    expect(guestEventFor(undefined, "checked_out")).toBe("guest.checked_out")
    expect(guestEventFor("checked_in", "checked_in")).toBeUndefined()
    expect(guestEventFor("checked_in", "cancelled")).toBeUndefined()
  })
})
