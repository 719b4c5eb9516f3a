import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { reservation } from "../support/fixtures.ts"
import { createTenant, post, startPlatform, testSql, type RunningPlatform, type TestTenant } from "../support/platform.ts"

let platform: RunningPlatform
let tenant: TestTenant
const sql = testSql()

beforeAll(async () => {
  platform = await startPlatform("batch")
  tenant = await createTenant("batch")
})
afterAll(async () => {
  await platform?.stop()
  await sql.end()
})

const batch = (body: unknown) => post(platform.baseUrl, "/api/v1/reservations/batch", tenant.live_key, body)

describe("POST /api/v1/reservations/batch", () => {
  it("judges each item on its own and answers one result per item, in order", async () => {
    const hotel = { hotel_code: tenant.hotel_code }
    const existing = reservation(hotel)
    await post(platform.baseUrl, "/api/v1/reservations", tenant.live_key, existing)
    const items = [
      reservation(hotel),
      { ...existing, amount: 12 },
      { ...reservation(hotel), check_in: "2026-13-01" },
      reservation({ hotel_code: "NOPE" }),
      { ...reservation(hotel), guests: [] },
      reservation(hotel)
    ]
    const res = await batch({ reservations: items })
    expect(res.status).toBe(200)
    expect(res.body.data).toMatchObject({ total: 6, created: 2, updated: 1, skipped: 1, failed: 2 })
    const results = res.body.data.results
    expect(results.map((r: { index: number }) => r.index)).toEqual([0, 1, 2, 3, 4, 5])
    expect(results.map((r: { status: number }) => r.status)).toEqual([201, 200, 400, 422, 200, 201])
    expect(results[0].data.external_reservation_id).toBe(items[0]!.reservation_id)
    expect(results[2].error).toMatchObject({ code: "VALIDATION_ERROR", details: { check_in: expect.any(Array) } })
    expect(results[3].error).toMatchObject({ code: "HOTEL_NOT_FOUND" })
    expect(results[4].data.skipped).toBe("no_guests_no_existing_reservation")
    const stored = await sql`SELECT external_id FROM reservations WHERE external_id = ANY(${items.map((i) => i.reservation_id)})`
    expect(stored.length).toBe(3)
  })

  it("refuses an empty batch, more than 50 items, or a body without a reservations array", async () => {
    const tooMany = await batch({ reservations: Array.from({ length: 51 }, () => reservation({ hotel_code: tenant.hotel_code })) })
    expect(tooMany.status).toBe(400)
    expect(tooMany.body).toMatchObject({ success: false, error: { code: "VALIDATION_ERROR", details: { reservations: expect.any(Array) } } })
    expect((await batch({ reservations: [] })).status).toBe(400)
    const wrong = await batch({ items: [] })
    expect(wrong.status).toBe(400)
    expect(wrong.body.error.details).toHaveProperty("reservations")
  })

  it("accepts exactly 50 items", async () => {
    const res = await batch({ reservations: Array.from({ length: 50 }, () => reservation({ hotel_code: tenant.hotel_code })) })
    expect(res.status).toBe(200)
    expect(res.body.data.created).toBe(50)
  })
})
