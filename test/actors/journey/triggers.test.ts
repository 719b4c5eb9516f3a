import { describe, expect, it } from "@effect/vitest"
import type { JourneySignal } from "../../../actors/journey/protocol.ts"
import { signalsOf } from "../../../actors/journey/signals.ts"
import { stageOf } from "../../../actors/journey/stage.ts"
import { entryRefusal, scopeOf, stopOnBookingOf } from "../../../actors/journey/triggers.ts"

const signal = (o: Partial<JourneySignal>): JourneySignal => ({
  contact_id: "c", event_id: "e", event_name: "cart.abandoned", occurred_at: "", payload: {}, origin: "core", source: null,
  hotel_id: null, reservation_id: null, starts: true, ...o
})

describe("journey triggers", () => {
  it("scopes runs by cart, else session (website), else reservation, else the contact", () => {
    expect(scopeOf(signal({ payload: { context: { cart_id: "k", session_id: "s" } } }))).toBe("cart:k")
    expect(scopeOf(signal({ origin: "website", payload: { context: { session_id: "s" } } }))).toBe("session:s")
    expect(scopeOf(signal({ origin: "core", payload: { context: { session_id: "s" } } }))).toBe("contact")
    expect(scopeOf(signal({ origin: "booking", reservation_id: "r" }))).toBe("reservation:r")
    expect(scopeOf(signal({}))).toBe("contact")
  })

  it("re-entry: a live run refuses; never once; always again; after a cooldown", () => {
    const t = (reentry: any) => ({ type: "event" as const, event: "a.b", reentry })
    expect(entryRefusal(t("always"), true, undefined, 0)).toBe("already_in_journey")
    expect(entryRefusal(t(undefined), false, 5, 10)).toBe("already_entered")
    expect(entryRefusal(t("always"), false, 5, 10)).toBeNull()
    expect(entryRefusal(t({ after: "PT1M" }), false, 0, 59_999)).toBe("reentry_cooldown")
    expect(entryRefusal(t({ after: "PT1M" }), false, 0, 60_000)).toBeNull()
  })

  it("stop_on_booking defaults on, except for journeys about the stay itself", () => {
    expect(stopOnBookingOf({ type: "event", event: "cart.abandoned" })).toBe(true)
    expect(stopOnBookingOf({ type: "event", event: "booking.created" })).toBe(false)
    expect(stopOnBookingOf({ type: "event", event: "booking.created", stop_on_booking: true })).toBe(true)
  })

  it("a booking signals its holder (who may start journeys) and its companions (whose runs it may stop)", () => {
    const s = signalsOf({
      tenant_id: "t", sandbox: false, occurred_at: "", event_id: "e", event_type: "booking.created", contact_id: "holder",
      hotel_id: "h", source: "pms", origin: "booking", data: { reservation_id: "r", contact_ids: ["holder", "friend"] }
    })
    expect(s.map((x) => [x.contact_id, x.starts, x.origin, x.reservation_id])).toEqual([["holder", true, "booking", "r"], ["friend", false, "booking", "r"]])
    // A partner's own booking.created through POST /api/v1/events is a core event: its payload's ids are the partner's.
    const partner = signalsOf({
      tenant_id: "t", sandbox: false, occurred_at: "", event_id: "e", event_type: "booking.created", contact_id: "c", data: { reservation_id: "PMS-1", contact_ids: ["x"] }
    })
    expect(partner.map((x) => [x.contact_id, x.origin, x.reservation_id])).toEqual([["c", "core", null]])
    expect(signalsOf({ tenant_id: "t", sandbox: false, occurred_at: "", event_id: "e", event_type: "x.y", contact_id: null, data: {} })).toEqual([])
  })

  it("derives the guest stage from the booking dates in the hotel's timezone", () => {
    const stay = { check_in: "2027-01-10", check_out: "2027-01-12" }
    // 23:30Z on the 9th is already the 10th in Madrid (UTC+1 in winter).
    expect(stageOf(stay, "Europe/Madrid", Date.parse("2027-01-09T22:30:00Z"))).toBe("pre_stay")
    expect(stageOf(stay, "Europe/Madrid", Date.parse("2027-01-09T23:30:00Z"))).toBe("during_stay")
    expect(stageOf(stay, "Europe/Madrid", Date.parse("2027-01-12T09:00:00Z"))).toBe("post_stay")
  })
})
