import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { phone, reservation } from "../support/fixtures.ts"
import { createKey, createTenant, request, startPlatform, type RunningPlatform, type TestTenant } from "../support/platform.ts"

// GET /api/v1/events and GET /api/v1/events/{event_id}: core events and the reservation family's booking events.

let platform: RunningPlatform
let other: TestTenant

beforeAll(async () => {
  platform = await startPlatform("event-reads")
  other = await createTenant("er-other")
})
afterAll(async () => {
  await platform?.stop()
})

const call = (method: string, path: string, key: string, body?: unknown) =>
  request(platform.baseUrl, method, path, body === undefined ? { key } : { key, body })
const record = async (t: TestTenant, body: Record<string, unknown>, key = t.live_key) => {
  const res = await call("POST", "/api/v1/events", key, { payload: {}, ...body })
  expect(res.status).toBe(201)
  return res.body.data.event_id as string
}
const guest = async (t: TestTenant) =>
  (await call("POST", "/api/v1/guests", t.live_key, { phone: phone(Math.floor(Math.random() * 80_000_000)), first_name: "Eve", last_name: "Nt" }))
    .body.data.contact_id as string
const one = (id: string, key: string) => call("GET", `/api/v1/events/${id}`, key)
const list = (query: string, key: string) => call("GET", `/api/v1/events${query}`, key)
const ids = async (query: string, key: string) => {
  const res = await list(query, key)
  expect(res.status).toBe(200)
  return res.body.data.events.map((e: { event_id: string }) => e.event_id)
}

describe("GET /api/v1/events/{event_id}", () => {
  it("reads a core event and a reservation's booking event alike", async () => {
    const t = await createTenant("er-one")
    const contact = await guest(t)
    const core = await record(t, { event_type: "review.requested", payload: { score: 9 }, contact_id: contact, hotel_code: t.hotel_code, source: "crm", idempotency_key: "rev-1" })
    const got = await one(core, t.live_key)
    expect(got.status).toBe(200)
    expect(got.body).toEqual({
      success: true,
      data: {
        event_id: core, event_type: "review.requested", status: "accepted", contact_id: contact, hotel_id: t.hotel_id,
        reservation_id: null, source: "crm", idempotency_key: "rev-1", payload: { score: 9 }, created_at: expect.any(String)
      }
    })
    const booked = await call("POST", "/api/v1/reservations", t.live_key, reservation({ hotel_code: t.hotel_code }))
    const booking = await one(booked.body.data.event_id, t.live_key)
    expect(booking.status).toBe(200)
    expect(booking.body.data).toMatchObject({
      event_type: "booking.created", reservation_id: booked.body.data.reservation_id, hotel_id: t.hotel_id,
      contact_id: booked.body.data.contacts[0].contact_id
    })
  })

  it("answers 404 for an unknown id, another tenant's event and the other mode's event; 400 naming event_id for a malformed one", async () => {
    const t = await createTenant("er-iso")
    const live = await record(t, { event_type: "spa.booked" })
    const sandboxed = await record(t, { event_type: "spa.booked" }, t.test_key)
    expect((await one(crypto.randomUUID(), t.live_key)).status).toBe(404)
    expect((await one(live, other.live_key)).status).toBe(404)
    expect((await one(live, t.test_key)).status).toBe(404)
    expect((await one(sandboxed, t.live_key)).status).toBe(404)
    expect((await one(sandboxed, t.test_key)).status).toBe(200)
    const malformed = await one("not-a-uuid", t.live_key)
    expect(malformed.status).toBe(400)
    expect(Object.keys(malformed.body.error.details)).toEqual(["event_id"])
  })

  it("needs guests:read", async () => {
    const t = await createTenant("er-scope")
    const id = await record(t, { event_type: "spa.booked" })
    const [reader, bookings] = await Promise.all([createKey(t.tenant_id, ["guests:read"]), createKey(t.tenant_id, ["bookings:read"])])
    expect((await one(id, reader.key)).status).toBe(200)
    expect((await one(id, bookings.key)).status).toBe(403)
    expect((await list("", bookings.key)).body.error.details).toEqual({ required_scope: "guests:read" })
  })
})

describe("GET /api/v1/events", () => {
  it("lists core and booking events newest first, paged without skip or repeat while events keep arriving", async () => {
    const t = await createTenant("er-pages")
    const made: Array<string> = []
    for (let i = 0; i < 5; i++) made.push(await record(t, { event_type: `spa.step_${i}` }))
    made.push((await call("POST", "/api/v1/reservations", t.live_key, reservation({ hotel_code: t.hotel_code }))).body.data.event_id)
    const first = await list("?limit=4", t.live_key)
    expect(first.body.data.events.map((e: { event_id: string }) => e.event_id)).toEqual(made.slice(-4).reverse())
    expect(first.body.data.events[0].event_type).toBe("booking.created")
    await record(t, { event_type: "spa.late" })
    const second = await list(`?limit=4&cursor=${first.body.data.next_cursor}`, t.live_key)
    expect(second.body.data.events.map((e: { event_id: string }) => e.event_id)).toEqual(made.slice(0, 2).reverse())
    expect(second.body.data.next_cursor).toBeNull()
  })

  it("filters by type, contact and time, and never shows another tenant's or the other mode's events", async () => {
    const t = await createTenant("er-filter")
    const contact = await guest(t)
    const early = await record(t, { event_type: "spa.booked", contact_id: contact })
    const since = new Date(Date.now() + 1).toISOString()
    await new Promise((r) => setTimeout(r, 20))
    const late = await record(t, { event_type: "review.requested", contact_id: contact })
    const anonymous = await record(t, { event_type: "spa.booked" })
    const sandboxed = await record(t, { event_type: "spa.booked" }, t.test_key)
    expect(await ids("?type=spa.booked", t.live_key)).toEqual([anonymous, early])
    expect(await ids(`?contact_id=${contact}`, t.live_key)).toEqual([late, early])
    expect(await ids(`?since=${encodeURIComponent(since)}`, t.live_key)).toEqual([anonymous, late])
    expect(await ids(`?type=spa.booked&contact_id=${contact}`, t.live_key)).toEqual([early])
    expect(await ids("", t.test_key)).toEqual([sandboxed])
    expect(await ids("?limit=100", other.live_key)).not.toContain(early)
  })

  it("refuses malformed filters, limits and cursors with 400 naming the parameter", async () => {
    const refused: Array<[string, string]> = [
      ["?type=Not%20A%20Type", "type"],
      ["?contact_id=42", "contact_id"],
      ["?since=yesterday", "since"],
      ["?since=2026-06-01T10:00:00", "since"],
      ["?limit=0", "limit"],
      ["?limit=1000", "limit"],
      ["?cursor=%25%25", "cursor"]
    ]
    for (const [query, parameter] of refused) {
      const res = await list(query, other.live_key)
      expect({ query, status: res.status }).toEqual({ query, status: 400 })
      expect(Object.keys(res.body.error.details)).toEqual([parameter])
    }
  })
})
