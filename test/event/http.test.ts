import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { phone } from "../support/fixtures.ts"
import { createTenant, post, startPlatform, testSql, type RunningPlatform, type TestTenant } from "../support/platform.ts"

let platform: RunningPlatform
let tenant: TestTenant
let contactId: string
const sql = testSql()

beforeAll(async () => {
  platform = await startPlatform("events")
  tenant = await createTenant("events")
  const g = await post(platform.baseUrl, "/api/v1/guests", tenant.live_key, { phone: phone(1), first_name: "Eve", last_name: "Nt" })
  contactId = g.body.data.contact_id
})
afterAll(async () => {
  await platform?.stop()
  await sql.end()
})

const send = (body: unknown) => post(platform.baseUrl, "/api/v1/events", tenant.live_key, body)

describe("POST /api/v1/events", () => {
  it("accepts standard and custom category.action types, resolving contact and hotel", async () => {
    const standard = await send({ event_type: "review.requested", payload: { score: 9 }, contact_id: contactId, hotel_code: tenant.hotel_code, source: "crm" })
    expect(standard.status).toBe(201)
    expect(standard.body).toEqual({
      success: true,
      data: {
        event_id: expect.any(String), status: "accepted", event_type: "review.requested", contact_id: contactId,
        hotel_id: tenant.hotel_id, matching_journeys: 0, created_at: expect.any(String), idempotent_replay: false, message: "Event accepted",
        warnings: []
      }
    })
    const custom = await send({ event_type: "spa.booked", payload: {}, guest_phone: phone(1).replace(/ /g, "") })
    expect(custom.status).toBe(201)
    expect(custom.body.data.contact_id).toBe(contactId)
    const [row] = await sql`SELECT type, payload, source FROM events WHERE id = ${standard.body.data.event_id}`
    expect(row).toEqual({ type: "review.requested", payload: { score: 9 }, source: "crm" })
  })

  it("counts matching active journeys of the tenant", async () => {
    const journey = async (name: string, extra: Record<string, unknown>, key = tenant.live_key) => {
      const res = await post(platform.baseUrl, "/api/v1/journeys", key, {
        name, trigger: { type: "event", event: "review.requested" }, steps: [{ id: "done", type: "end" }], ...extra
      })
      expect(res.status).toBe(201)
      return res.body.data.journey_id as string
    }
    const other = await createTenant("events-journeys")
    await journey("Post-stay review", { status: "active" })
    await journey("This hotel", { status: "active", hotel_ids: [tenant.hotel_id] })
    await journey("Draft", {})
    await post(platform.baseUrl, `/api/v1/journeys/${await journey("Paused", { status: "active" })}/pause`, tenant.live_key, undefined)
    await post(platform.baseUrl, `/api/v1/journeys/${await journey("Archived", { status: "active" })}/archive`, tenant.live_key, undefined)
    await journey("Sandbox", { status: "active" }, tenant.test_key)
    await journey("Other tenant", { status: "active" }, other.live_key)
    await journey("Other hotel", { status: "active", hotel_ids: [other.hotel_id] }, other.live_key)
    const res = await send({ event_type: "review.requested", payload: {}, contact_id: contactId, hotel_code: tenant.hotel_code })
    expect(res.body.data.matching_journeys).toBe(2)
    // Without a hotel, only the journeys for every hotel match.
    expect((await send({ event_type: "review.requested", payload: {}, contact_id: contactId })).body.data.matching_journeys).toBe(1)
  })

  it("returns the original event for a repeated idempotency_key, per tenant, even under concurrency", async () => {
    const key = `idem-${Date.now()}`
    const answers = await Promise.all(Array.from({ length: 10 }, () => send({ event_type: "payment.received", payload: { amount: 10 }, contact_id: contactId, idempotency_key: key })))
    const ids = new Set(answers.map((a) => a.body.data.event_id))
    expect(ids.size).toBe(1)
    expect(answers.filter((a) => a.status === 201).length).toBe(1)
    expect(answers.filter((a) => a.body.data.idempotent_replay).length).toBe(9)
    const other = await createTenant("events-other")
    const elsewhere = await post(platform.baseUrl, "/api/v1/events", other.live_key, { event_type: "payment.received", payload: {}, idempotency_key: key })
    expect(elsewhere.status).toBe(201)
    expect(elsewhere.body.data.event_id).not.toBe([...ids][0])
  })

  it("refuses an event_type that is neither standard nor category.action, and other bad input, storing nothing", async () => {
    const before = await sql`SELECT count(*)::int AS n FROM events WHERE tenant_id = ${tenant.tenant_id}`
    const cases: Array<[unknown, number, string]> = [
      [{ event_type: "Booking.Created", payload: {} }, 400, "event_type"],
      [{ event_type: "checkin", payload: {} }, 400, "event_type"],
      [{ event_type: "a.b.c", payload: {} }, 400, "event_type"],
      [{ event_type: "spa.booked" }, 400, "payload"],
      [{ event_type: "spa.booked", payload: [] }, 400, "payload"],
      [{ event_type: "spa.booked", payload: {}, contact_id: "not-a-uuid" }, 400, "contact_id"],
      [{ event_type: "spa.booked", payload: {}, contact_id: "00000000-0000-4000-8000-000000000000" }, 422, "contact_id"],
      [{ event_type: "spa.booked", payload: {}, guest_phone: "+34 699 999 998" }, 422, "guest_phone"],
      [{ event_type: "spa.booked", payload: {}, hotel_code: "NOPE" }, 422, "hotel_code"]
    ]
    for (const [body, status, field] of cases) {
      const res = await send(body)
      expect(res.status).toBe(status)
      expect(Object.keys(res.body.error.details)).toContain(field)
    }
    const after = await sql`SELECT count(*)::int AS n FROM events WHERE tenant_id = ${tenant.tenant_id}`
    expect(after[0]!.n).toBe(before[0]!.n)
  })
})
