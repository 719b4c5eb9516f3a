import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { phone, reservation, uniqueId } from "../support/fixtures.ts"
import { createKey, createTenant, request, startPlatform, testSql, type RunningPlatform, type TestTenant } from "../support/platform.ts"

// GET /api/v1/reservations/{id} (our UUID or the partner's id) and GET /api/v1/reservations (the one list shape).

let platform: RunningPlatform
let tenant: TestTenant
let other: TestTenant
const sql = testSql()

beforeAll(async () => {
  platform = await startPlatform("resv-reads")
  ;[tenant, other] = await Promise.all([createTenant("rr"), createTenant("rr-other")])
})
afterAll(async () => {
  await platform?.stop()
  await sql.end()
})

const call = (method: string, path: string, key: string, body?: unknown) =>
  request(platform.baseUrl, method, path, body === undefined ? { key } : { key, body })
const get = (path: string, key = tenant.live_key) => call("GET", path, key)
const create = async (t: TestTenant, overrides: Record<string, unknown> = {}, key = t.live_key) => {
  const body = reservation({ hotel_code: t.hotel_code }, overrides)
  const res = await call("POST", "/api/v1/reservations", key, body)
  expect(res.status).toBe(201)
  return { external: body.reservation_id as string, id: res.body.data.reservation_id as string, answer: res.body.data }
}
const one = (id: string, key = tenant.live_key) => get(`/api/v1/reservations/${encodeURIComponent(id)}`, key)
const list = (query: string, key = tenant.live_key) => get(`/api/v1/reservations${query}`, key)
/** Every page of a list, following next_cursor. */
const allPages = async (query: string, key: string) => {
  const pages: Array<Array<Record<string, any>>> = []
  let cursor: string | null = null
  do {
    const res = await list(`${query}${cursor === null ? "" : `&cursor=${cursor}`}`, key)
    expect(res.status).toBe(200)
    pages.push(res.body.data.reservations)
    cursor = res.body.data.next_cursor
  } while (cursor !== null)
  return pages
}

describe("GET /api/v1/reservations/{id}", () => {
  it("answers for our UUID and for the partner's id alike, with guests, stays, extras, status, stage and attribution", async () => {
    const r = await create(tenant, {
      status: "checked_in",
      stays: [{ start_date: "2026-12-01", end_date: "2026-12-04", room_type: "DBL", adults: 2 }],
      extras: [{ name: "Parking", amount: 20 }],
      metadata: { loyalty: { tier: "gold" } },
      guests: [
        { first_name: "Ana", phone: phone(4101), is_holder: true, address: { city: "Madrid" } },
        { first_name: "Ben", email: `ben.${uniqueId("g").toLowerCase()}@gmail.com` }
      ]
    })
    const [byOurs, byPartners] = await Promise.all([one(r.id), one(r.external)])
    expect(byOurs.status).toBe(200)
    expect(byPartners.body).toEqual(byOurs.body)
    const data = byOurs.body.data
    expect(data).toMatchObject({
      reservation_id: r.id, external_reservation_id: r.external, hotel_id: tenant.hotel_id, status: "checked_in",
      guest_stage: "in-house", nights: 3, metadata: { loyalty: { tier: "gold" } },
      stays: [{
        start_date: "2026-12-01", end_date: "2026-12-04", room_type: "DBL", room_number: null, board_type: null, rate_code: null,
        adults: 2, children: null, babies: null
      }],
      extras: [{ name: "Parking", amount: 20, code: null, quantity: 1, date: null, notes: null }],
      attribution: { account_id: null, rule: null, path: [], manual: false }
    })
    expect(data.guests.map((g: any) => g.contact_id)).toEqual(r.answer.contacts.map((c: any) => c.contact_id))
    expect(data.guests[0]).toMatchObject({ first_name: "Ana", is_holder: true, address: { city: "Madrid" } })
    expect(Date.parse(data.created_at)).not.toBeNaN()
  })

  it("reads a UUID-shaped partner id that matches one of our ids as ours; by=external forces the partner's", async () => {
    const ours = await create(tenant)
    // The partner's id of this one is the UUID we gave the first.
    const colliding = await create(tenant, { reservation_id: ours.id })
    expect(colliding.id).not.toBe(ours.id)
    expect((await one(ours.id)).body.data.reservation_id).toBe(ours.id)
    const forced = await get(`/api/v1/reservations/${ours.id}?by=external`)
    expect(forced.status).toBe(200)
    expect(forced.body.data).toMatchObject({ reservation_id: colliding.id, external_reservation_id: ours.id })
    // A UUID-shaped partner id matching none of ours reads as the partner's without by=external.
    const shaped = await create(tenant, { reservation_id: crypto.randomUUID() })
    expect((await one(shaped.external)).body.data.reservation_id).toBe(shaped.id)
    // by=external never reads our id.
    expect((await get(`/api/v1/reservations/${shaped.id}?by=external`)).status).toBe(404)
  })

  it("refuses a by other than external with 400 naming by", async () => {
    for (const by of ["internal", "", "EXTERNAL"]) {
      const res = await get(`/api/v1/reservations/x?by=${by}`)
      expect(res.status).toBe(400)
      expect(res.body).toMatchObject({ success: false, error: { code: "VALIDATION_ERROR", details: { by: expect.any(Array) } } })
    }
  })

  it("answers 404 for an unknown id, another tenant's ids and the other mode's ids", async () => {
    const mine = await create(tenant)
    const sandboxed = await create(tenant, {}, tenant.test_key)
    expect((await one(crypto.randomUUID())).status).toBe(404)
    expect((await one("NO-SUCH-RESERVATION")).body).toMatchObject({ success: false, error: { code: "NOT_FOUND" } })
    for (const id of [mine.id, mine.external]) {
      expect((await one(id, other.live_key)).status).toBe(404)
      expect((await one(id, tenant.test_key)).status).toBe(404)
    }
    for (const id of [sandboxed.id, sandboxed.external]) {
      expect((await one(id)).status).toBe(404)
      expect((await one(id, tenant.test_key)).status).toBe(200)
    }
  })

  it("opens to a key holding bookings:read or guests:read, and names both to a key holding neither", async () => {
    const r = await create(tenant)
    const [bookings, guests, writer] = await Promise.all([
      createKey(tenant.tenant_id, ["bookings:read"]), createKey(tenant.tenant_id, ["guests:read"]), createKey(tenant.tenant_id, ["reservations:write"])
    ])
    expect((await one(r.id, bookings.key)).status).toBe(200)
    expect((await one(r.id, guests.key)).status).toBe(200)
    expect((await list("", guests.key)).status).toBe(200)
    for (const denied of [await one(r.id, writer.key), await list("", writer.key)]) {
      expect(denied.status).toBe(403)
      expect(denied.body.error.message).toContain("bookings:read or guests:read")
      expect(denied.body.error.details.accepted_scopes).toEqual(["bookings:read", "guests:read"])
    }
  })
})

describe("GET /api/v1/reservations", () => {
  it("pages newest updated first without skip or repeat, also while reservations are written between pages", async () => {
    const t = await createTenant("rr-pages")
    const made: Array<string> = []
    for (let i = 0; i < 7; i++) made.push((await create(t)).id)
    const first = await list("?limit=3", t.live_key)
    expect(first.body.data.reservations.map((r: any) => r.reservation_id)).toEqual(made.slice(-3).reverse())
    // Written after the first page: newer than the cursor, so neither shown again nor pushing an older one out.
    await create(t)
    const seen = [...first.body.data.reservations]
    let cursor = first.body.data.next_cursor
    while (cursor !== null) {
      const res = await list(`?limit=3&cursor=${cursor}`, t.live_key)
      seen.push(...res.body.data.reservations)
      cursor = res.body.data.next_cursor
    }
    expect(seen.map((r) => r.reservation_id)).toEqual([...made].reverse())
    const pages = await allPages("?limit=4", t.live_key)
    expect(pages.map((p) => p.length)).toEqual([4, 4])
  })

  it("filters by hotel, status, check-in range, update time and guest", async () => {
    const t = await createTenant("rr-filter")
    const [h2] = await sql`INSERT INTO hotels (tenant_id, code, name, timezone)
      VALUES (${t.tenant_id}, ${uniqueId("H2")}, ${uniqueId("Hotel Two")}, 'Europe/Madrid') RETURNING id`
    const guestPhone = phone(Math.floor(Math.random() * 80_000_000))
    const early = await create(t, { check_in: "2026-03-01", check_out: "2026-03-03", status: "cancelled" })
    const mid = await create(t, { check_in: "2026-06-10", check_out: "2026-06-12", guests: [{ first_name: "Eva", phone: guestPhone }] })
    const [{ now }] = await sql`SELECT now()::text AS now` as unknown as [{ now: string }]
    const lateBody = reservation({ hotel_id: h2!.id as string }, { check_in: "2026-09-01", check_out: "2026-09-05", guests: [{ first_name: "Eva", phone: guestPhone }] })
    const late = (await call("POST", "/api/v1/reservations", t.live_key, lateBody)).body.data
    const ids = async (query: string) => (await list(query, t.live_key)).body.data.reservations.map((r: any) => r.reservation_id)
    expect(await ids(`?hotel_id=${h2!.id}`)).toEqual([late.reservation_id])
    expect(await ids(`?hotel_id=${t.hotel_id}`)).toEqual([mid.id, early.id])
    expect(await ids("?status=cancelled")).toEqual([early.id])
    expect(await ids("?check_in_from=2026-06-10&check_in_to=2026-09-01")).toEqual([late.reservation_id, mid.id])
    expect(await ids("?check_in_to=2026-06-09")).toEqual([early.id])
    expect(await ids(`?updated_since=${encodeURIComponent(now.replace(" ", "T").replace(/\+00$/, "+00:00"))}`)).toEqual([late.reservation_id])
    expect(await ids(`?contact_id=${mid.answer.contacts[0].contact_id}`)).toEqual([late.reservation_id, mid.id])
    expect(await ids(`?contact_id=${mid.answer.contacts[0].contact_id}&hotel_id=${t.hotel_id}`)).toEqual([mid.id])
  })

  it("never lists another tenant's or the other mode's reservations", async () => {
    const t = await createTenant("rr-iso")
    const live = await create(t)
    const sandboxed = await create(t, {}, t.test_key)
    await create(other)
    const ids = async (key: string) => (await list("?limit=100", key)).body.data.reservations.map((r: any) => r.reservation_id)
    expect(await ids(t.live_key)).toEqual([live.id])
    expect(await ids(t.test_key)).toEqual([sandboxed.id])
    expect(await ids(other.live_key)).not.toContain(live.id)
  })

  it("refuses malformed filters, limits and cursors with 400 naming the parameter", async () => {
    const refused: Array<[string, string]> = [
      ["?hotel_id=not-a-uuid", "hotel_id"],
      ["?contact_id=123", "contact_id"],
      ["?status=open", "status"],
      ["?check_in_from=2026-13-01", "check_in_from"],
      ["?check_in_to=01/12/2026", "check_in_to"],
      ["?check_in_from=2026-06-02&check_in_to=2026-06-01", "check_in_to"],
      ["?updated_since=2026-06-01", "updated_since"],
      ["?updated_since=2026-06-01T10:00:00", "updated_since"],
      ["?limit=0", "limit"],
      ["?limit=101", "limit"],
      ["?limit=ten", "limit"],
      ["?cursor=bm90LWEtY3Vyc29y", "cursor"]
    ]
    for (const [query, parameter] of refused) {
      const res = await list(query)
      expect({ query, status: res.status }).toEqual({ query, status: 400 })
      expect(Object.keys(res.body.error.details)).toEqual([parameter])
    }
  })
})
