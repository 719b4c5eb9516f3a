import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { reservation } from "../support/fixtures.ts"
import { createJourney, runIn } from "../support/journeys.ts"
import { outboxMessages } from "../support/outbox.ts"
import { createTenant, startPlatform, testSql, type RunningPlatform, type TestTenant } from "../support/platform.ts"
import { createSource, serverPost } from "../website/support.ts"
import { cdp, pageView, unique, untilDone } from "./support.ts"

let platform: RunningPlatform
let tenant: TestTenant
let api: ReturnType<typeof cdp>
const sql = testSql()

beforeAll(async () => {
  process.env.GEP_JOURNEY_TIMER_MS = "200"
  platform = await startPlatform("cdp_resv")
  tenant = await createTenant("cdpresv")
  api = cdp(platform.baseUrl, tenant.live_key)
  await api.settings({ visitor_tracking: true })
})
afterAll(async () => {
  await platform?.stop()
  await sql.end()
})

const hotel = () => ({ hotel_code: tenant.hotel_code })
const email = () => `${unique("guest")}@hotel-guests.net`
const booker = (address: string) => [{ first_name: "Ana", last_name: "López", email: address, is_holder: true }]
const checkouts = async () => (await outboxMessages(platform.config.namespace, tenant.tenant_id)).filter((m) => m.subject.endsWith("evt.checkout.completed"))

describe("POST /api/v1/cdp/reservations", () => {
  it("stores through the reservation rules (201, then 200), links the visit to the booker and emits checkout.completed once", async () => {
    const visitor_id = unique("v")
    const session_id = unique("s")
    const cart_id = unique("cart")
    await api.events({ visitor_id, session_id, utm: { source: "newsletter" }, events: [pageView("https://hotel.com/rooms")] })
    const body = reservation(hotel(), { guests: booker(email()), visitor_id, session_id, cart_id, utm: { source: "newsletter", campaign: "winter" } })
    const first = await api.reservation(body)
    expect(first.status, JSON.stringify(first.body)).toBe(201)
    expect(first.body.data).toMatchObject({ is_new: true, event_type: "booking.created", visitor_linked: true, sessions_stitched: 1 })
    const holder = first.body.data.contacts[0].contact_id
    const [session] = await sql`SELECT contact_id, reservation_id FROM cdp_sessions WHERE tenant_id = ${tenant.tenant_id} AND session_id = ${session_id}`
    expect(session).toEqual({ contact_id: holder, reservation_id: first.body.data.reservation_id })
    const [event] = await sql`SELECT contact_id FROM cdp_events WHERE tenant_id = ${tenant.tenant_id} AND visitor_id = ${visitor_id}`
    expect(event!.contact_id).toBe(holder)
    const again = await api.reservation({ ...body, amount: 420 })
    expect(again.status).toBe(200)
    expect(again.body.data).toMatchObject({ is_new: false, reservation_id: first.body.data.reservation_id, checkout_event_id: first.body.data.checkout_event_id })
    const mine = (await checkouts()).filter((m) => (m.payload as any).data.context.cart_id === cart_id)
    expect(mine.length).toBe(1)
    expect(mine[0]!.payload).toMatchObject({ contact_id: holder, event_type: "checkout.completed", data: { context: { cart_id, session_id } } })
  })

  it("the same rules as /api/v1/reservations: bad body 400 naming fields, unknown hotel 422; without a visit no checkout", async () => {
    const bad = await api.reservation({ ...reservation(hotel()), check_in: "2026-13-01", utm: { source: 5 } })
    expect(bad.status).toBe(400)
    expect(Object.keys(bad.body.error.details).sort()).toEqual(["check_in", "utm.source"])
    const order = await api.reservation({ ...reservation(hotel()), check_out: "2020-01-01" })
    expect(order.status).toBe(400)
    expect(order.body.error.details).toHaveProperty("check_out")
    expect((await api.reservation(reservation({ hotel_code: "nope" }))).status).toBe(422)
    const plain = await api.reservation(reservation(hotel()))
    expect(plain.status).toBe(201)
    expect(plain.body.data).toMatchObject({ visitor_linked: false, sessions_stitched: 0, checkout_event_id: null })
    // A booker without a usable email or phone: nothing to link, nothing claimed (a later send with one links then).
    const anonymous = reservation(hotel(), { guests: [{ first_name: "Ana", is_holder: true }], cart_id: unique("cart") })
    expect((await api.reservation(anonymous)).body.data).toMatchObject({ visitor_linked: false, checkout_event_id: null })
    expect((await sql`SELECT 1 FROM cdp_checkouts WHERE external_reservation_id = ${anonymous.reservation_id}`).length).toBe(0)
    const named = await api.reservation({ ...anonymous, guests: booker(email()) })
    expect(named.body.data.checkout_event_id).not.toBeNull()
  })

  it("stops the cart-recovery journey waiting on that cart", async () => {
    const source = await createSource(platform.baseUrl, tenant.live_key)
    const journeyId = await createJourney(sql, tenant, {
      name: unique("Cart recovery"), trigger: { type: "event", event: "cart.abandoned" }, steps: [{ id: "w", type: "wait", duration: "P1D" }]
    })
    const guest = email()
    const cart_id = unique("cart")
    const sent = await serverPost(platform.baseUrl, source.server_key, { event: "cart.abandoned", contact: { email: guest }, context: { cart_id, stage: "payment" } })
    expect(sent.status, JSON.stringify(sent.body)).toBe(202)
    const contactId = sent.body.results[0].contact_id
    await runIn(sql, journeyId, contactId, ["waiting"], 60_000)
    const res = await api.reservation(reservation(hotel(), { guests: booker(guest), cart_id }))
    expect(res.status).toBe(201)
    const stopped = await runIn(sql, journeyId, contactId, ["stopped"], 60_000)
    expect(stopped.state).toBe("stopped")
  }, 120_000)
})

describe("POST /api/v1/cdp/reservations/batch", () => {
  it("up to 100, each judged alone (partial success, results in order)", async () => {
    const items = [reservation(hotel(), { session_id: unique("s") }), { ...reservation(hotel()), check_in: "bad" }, reservation({ hotel_code: "nope" })]
    const res = await api.batch(items)
    expect(res.status).toBe(200)
    expect(res.body.data).toMatchObject({ total: 3, created: 1, failed: 2 })
    expect(res.body.data.results.map((r: any) => r.status)).toEqual([201, 400, 422])
    expect(res.body.data.results[1].error.details).toHaveProperty("check_in")
    const over = await api.batch(Array.from({ length: 101 }, () => reservation(hotel())))
    expect(over.status).toBe(400)
    expect(over.body.error.details).toHaveProperty("reservations")
    expect((await api.batch([])).status).toBe(400)
  })
})

describe("POST /api/v1/cdp/reservations/bulk", () => {
  it("202 with batch_id and Location; processed in the background with per-item errors; the same idempotency_key is the same job", async () => {
    const items = [...Array.from({ length: 30 }, () => reservation(hotel(), { cart_id: unique("cart") })), { ...reservation(hotel()), guests: "x" }]
    const key = unique("nightly")
    const res = await api.bulk(items, key)
    expect(res.status, JSON.stringify(res.body)).toBe(202)
    const id = res.body.data.batch_id
    expect(res.headers.get("location")).toBe(`/api/v1/cdp/batches/${id}`)
    expect(res.body.data).toMatchObject({ status: "queued", total: 31, status_url: `/api/v1/cdp/batches/${id}` })
    expect((await api.bulk(items, key)).body.data.batch_id).toBe(id)
    const done = await untilDone(() => api.status(id))
    expect(done).toMatchObject({ status: "completed", total: 31, processed: 31, succeeded: 30, failed: 1 })
    expect(done.errors).toEqual([{ index: 30, error: expect.objectContaining({ code: "VALIDATION_ERROR" }) }])
    const stored = await sql`SELECT count(*)::int AS n FROM reservations WHERE tenant_id = ${tenant.tenant_id} AND external_id = ANY(${items.slice(0, 30).map((i) => i.reservation_id)})`
    expect(stored[0]!.n).toBe(30)
  }, 120_000)

  it("1 to 5,000 items; another account's batch is not found", async () => {
    expect((await api.bulk([])).status).toBe(400)
    const one = reservation(hotel())
    const over = await api.bulk(Array.from({ length: 5_001 }, () => one))
    expect(over.status).toBe(400)
    expect(over.body.error.details).toHaveProperty("reservations")
    const res = await api.bulk([reservation(hotel())])
    const other = await createTenant("cdpother")
    expect((await cdp(platform.baseUrl, other.live_key).status(res.body.data.batch_id)).status).toBe(404)
    expect((await api.status("bat_nope")).status).toBe(404)
  })
})
