import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { reservation, uniqueId } from "../support/fixtures.ts"
import { createKey, createTenant, request, startPlatform, type HttpResult, type RunningPlatform, type TestTenant } from "../support/platform.ts"

let platform: RunningPlatform
let tenant: TestTenant
let other: TestTenant
/** Keys of the tenant: one that reads only, one that manages hotels only. */
let reader: string
let manager: string

beforeAll(async () => {
  platform = await startPlatform("hotels")
  ;[tenant, other] = await Promise.all([createTenant("hotels"), createTenant("hotels-other")])
  ;[reader, manager] = await Promise.all([
    createKey(tenant.tenant_id, ["guests:read"]).then((k) => k.key),
    createKey(tenant.tenant_id, ["hotels:manage"]).then((k) => k.key)
  ])
}, 60_000)
afterAll(async () => {
  await platform?.stop()
})

const call = (method: string, path: string, key: string, body?: unknown) =>
  request(platform.baseUrl, method, path, body === undefined ? { key } : { key, body })
const newHotel = (overrides: Record<string, unknown> = {}) => ({
  code: uniqueId("HTL"), name: `Hotel ${uniqueId("n")}`, timezone: "Atlantic/Canary", ...overrides
})
const created = async (res: Promise<HttpResult>) => {
  const r = await res
  expect(r.status, JSON.stringify(r.body)).toBe(201)
  return r.body.data
}

describe("POST /api/v1/hotels", () => {
  it("creates a hotel that reservations name by its code at once", async () => {
    const body = newHotel({ country: "ES", default_language: "es", check_in_time: "15:00", check_out_time: "11:30" })
    const hotel = await created(call("POST", "/api/v1/hotels", tenant.live_key, body))
    expect(hotel).toMatchObject({ ...body, hotel_id: expect.any(String), created_at: expect.any(String), updated_at: expect.any(String) })
    const booked = await call("POST", "/api/v1/reservations", tenant.live_key, reservation({ hotel_code: body.code }))
    expect(booked.status, JSON.stringify(booked.body)).toBe(201)
    expect(booked.body.data.hotel_id).toBe(hotel.hotel_id)
    // Hotels are shared by the two modes: a sandbox reservation names the same hotel.
    const sandbox = await call("POST", "/api/v1/reservations", tenant.test_key, reservation({ hotel_code: body.code }))
    expect(sandbox.status).toBe(201)
  })

  it("answers optional fields absent as null", async () => {
    const hotel = await created(call("POST", "/api/v1/hotels", manager, newHotel()))
    expect(hotel).toMatchObject({ country: null, default_language: null, check_in_time: null, check_out_time: null })
  })

  it("refuses a code or a name already in the account with 409 naming the field; another account may use them", async () => {
    const body = newHotel()
    await created(call("POST", "/api/v1/hotels", tenant.live_key, body))
    const sameCode = await call("POST", "/api/v1/hotels", tenant.live_key, newHotel({ code: body.code }))
    expect(sameCode.status).toBe(409)
    expect(sameCode.body.error).toMatchObject({ code: "HOTEL_EXISTS", details: { code: expect.any(Array) } })
    const sameName = await call("POST", "/api/v1/hotels", tenant.test_key, newHotel({ name: body.name.toUpperCase() }))
    expect(sameName.status).toBe(409)
    expect(Object.keys(sameName.body.error.details)).toEqual(["name"])
    await created(call("POST", "/api/v1/hotels", other.live_key, body))
  })

  it("refuses bad fields with 400 naming each, and writes nothing", async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ timezone: "Mars/Olympus" }, "timezone"],
      [{ timezone: "+01:00" }, "timezone"],
      [{ timezone: "europe/madrid" }, "timezone"],
      [{ country: "XX" }, "country"],
      [{ country: "esp" }, "country"],
      [{ default_language: "not a language" }, "default_language"],
      [{ check_in_time: "24:00" }, "check_in_time"],
      [{ check_out_time: "9:00" }, "check_out_time"],
      [{ code: " " }, "code"],
      [{ code: " BCN" }, "code"],
      [{ code: "x".repeat(65) }, "code"],
      [{ name: "" }, "name"],
      [{ code: "A\u0000B" }, "code"]
    ]
    for (const [override, field] of cases) {
      const body = newHotel(override)
      const res = await call("POST", "/api/v1/hotels", tenant.live_key, body)
      expect(res.status, `${field}: ${JSON.stringify(res.body)}`).toBe(400)
      expect(Object.keys(res.body.error.details)).toContain(field)
    }
    const missing = await call("POST", "/api/v1/hotels", tenant.live_key, { code: uniqueId("H") })
    expect(missing.status).toBe(400)
    expect(Object.keys(missing.body.error.details).sort()).toEqual(["name", "timezone"])
  })

  it("needs hotels:manage: a read-only key gets 403", async () => {
    const res = await call("POST", "/api/v1/hotels", reader, newHotel())
    expect(res.status).toBe(403)
    expect(res.body.error.details).toEqual({ required_scope: "hotels:manage" })
  })
})

describe("GET /api/v1/hotels", () => {
  it("lists the account's hotels newest first in the one list shape, paging with next_cursor", async () => {
    const fresh = await createTenant("hotels-list")
    const codes = [fresh.hotel_code]
    for (let i = 0; i < 4; i++) codes.push((await created(call("POST", "/api/v1/hotels", fresh.live_key, newHotel()))).code)
    const seen: Array<string> = []
    let cursor: string | null = null
    do {
      const res: HttpResult = await call("GET", `/api/v1/hotels?limit=2${cursor ? `&cursor=${cursor}` : ""}`, fresh.test_key)
      expect(res.status).toBe(200)
      expect(Object.keys(res.body.data).sort()).toEqual(["hotels", "next_cursor"])
      seen.push(...res.body.data.hotels.map((h: { code: string }) => h.code))
      cursor = res.body.data.next_cursor
    } while (cursor !== null)
    expect(seen).toEqual([...codes].reverse())
  })

  it("refuses a bad limit or cursor with 400 naming it", async () => {
    for (const [query, field] of [["limit=0", "limit"], ["limit=101", "limit"], ["limit=x", "limit"], ["cursor=nope", "cursor"]]) {
      const res = await call("GET", `/api/v1/hotels?${query}`, reader)
      expect(res.status, query).toBe(400)
      expect(Object.keys(res.body.error.details)).toEqual([field])
    }
  })

  it("shows no other account's hotels", async () => {
    const res = await call("GET", "/api/v1/hotels?limit=100", other.live_key)
    expect(res.body.data.hotels.map((h: { hotel_id: string }) => h.hotel_id)).not.toContain(tenant.hotel_id)
  })
})

describe("GET and PATCH /api/v1/hotels/{hotel_id}", () => {
  it("reads a hotel by id with either mode's key", async () => {
    for (const key of [reader, tenant.test_key]) {
      const res = await call("GET", `/api/v1/hotels/${tenant.hotel_id}`, key)
      expect(res.status).toBe(200)
      expect(res.body.data).toMatchObject({ hotel_id: tenant.hotel_id, code: tenant.hotel_code, name: tenant.hotel_name, timezone: "Europe/Madrid" })
    }
  })

  it("changes the fields given, clears with null, and the new code is accepted by reservations", async () => {
    const hotel = await created(call("POST", "/api/v1/hotels", manager, newHotel({ country: "PT", check_in_time: "14:00" })))
    const code = uniqueId("NEW")
    const res = await call("PATCH", `/api/v1/hotels/${hotel.hotel_id}`, manager, { code, timezone: "Europe/Lisbon", country: null })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    expect(res.body.data).toMatchObject({ hotel_id: hotel.hotel_id, code, name: hotel.name, timezone: "Europe/Lisbon", country: null, check_in_time: "14:00" })
    expect(Date.parse(res.body.data.updated_at)).toBeGreaterThanOrEqual(Date.parse(hotel.updated_at))
    const booked = await call("POST", "/api/v1/reservations", tenant.live_key, reservation({ hotel_code: code }))
    expect(booked.status).toBe(201)
    // The old code names nothing any more (this ingress forgot its cached reference at once).
    const old = await call("POST", "/api/v1/reservations", tenant.live_key, reservation({ hotel_code: hotel.code }))
    expect(old.status).toBe(422)
    expect((await call("GET", `/api/v1/hotels/${hotel.hotel_id}`, reader)).body.data.code).toBe(code)
  })

  it("answers an empty change with the hotel as it is", async () => {
    const hotel = await created(call("POST", "/api/v1/hotels", manager, newHotel()))
    const res = await call("PATCH", `/api/v1/hotels/${hotel.hotel_id}`, manager, {})
    expect(res.status).toBe(200)
    expect(res.body.data).toEqual(hotel)
  })

  it("refuses a code another hotel has with 409 naming code, and bad fields with 400", async () => {
    const hotel = await created(call("POST", "/api/v1/hotels", manager, newHotel()))
    const clash = await call("PATCH", `/api/v1/hotels/${hotel.hotel_id}`, manager, { code: tenant.hotel_code })
    expect(clash.status).toBe(409)
    expect(Object.keys(clash.body.error.details)).toEqual(["code"])
    const bad = await call("PATCH", `/api/v1/hotels/${hotel.hotel_id}`, manager, { timezone: null, check_out_time: "noon" })
    expect(bad.status).toBe(400)
    expect(Object.keys(bad.body.error.details).sort()).toEqual(["check_out_time", "timezone"])
  })

  it("answers a malformed id 400 naming hotel_id, and another account's or an unknown id 404", async () => {
    for (const method of ["GET", "PATCH"]) {
      const body = method === "PATCH" ? { name: "x" } : undefined
      const malformed = await call(method, "/api/v1/hotels/not-a-uuid", tenant.live_key, body)
      expect(malformed.status).toBe(400)
      expect(Object.keys(malformed.body.error.details)).toEqual(["hotel_id"])
      expect((await call(method, `/api/v1/hotels/${other.hotel_id}`, tenant.live_key, body)).status).toBe(404)
      expect((await call(method, "/api/v1/hotels/00000000-0000-4000-8000-000000000000", tenant.live_key, body)).status).toBe(404)
    }
    expect((await call("GET", `/api/v1/hotels/${other.hotel_id}`, other.live_key)).body.data.name).toBe(other.hotel_name)
  })

  it("needs hotels:manage to change a hotel", async () => {
    expect((await call("PATCH", `/api/v1/hotels/${tenant.hotel_id}`, reader, { name: "x" })).status).toBe(403)
  })
})
