import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { e164, phone, reservation } from "../../support/fixtures.ts"
import { createTenant, post, startPlatform, testSql, type RunningPlatform, type TestTenant } from "../../support/platform.ts"

let platform: RunningPlatform
let tenant: TestTenant
const sql = testSql()

beforeAll(async () => {
  platform = await startPlatform("identity")
  tenant = await createTenant("identity")
})
afterAll(async () => {
  await platform?.stop()
  await sql.end()
})

describe("identity resolution under concurrency", () => {
  it("200 concurrent reservations sharing one guest phone yield exactly one contact", async () => {
    const shared = phone(99_001)
    const responses = await Promise.all(Array.from({ length: 200 }, (_, i) =>
      post(platform.baseUrl, "/api/v1/reservations", tenant.live_key, reservation({ hotel_code: tenant.hotel_code }, {
        guests: [
          { first_name: "Shared", phone: shared, is_holder: true },
          { first_name: `Companion ${i}`, phone: phone(100_000 + i) }
        ]
      }))))
    expect(responses.map((r) => r.status).every((s) => s === 201)).toBe(true)
    const ids = new Set(responses.map((r) => r.body.data.contacts[0].contact_id))
    expect(ids.size).toBe(1)
    expect(responses.filter((r) => r.body.data.contacts[0].is_new).length).toBe(1)
    const rows = await sql`SELECT count(*)::int AS n FROM contacts WHERE tenant_id = ${tenant.tenant_id} AND phone = ${e164(99_001)}`
    expect(rows[0]!.n).toBe(1)
  }, 60_000)

  it("guests listed in opposite orders by concurrent reservations neither deadlock nor duplicate", async () => {
    const [x, y] = [phone(77_001), phone(77_002)]
    const responses = await Promise.all(Array.from({ length: 60 }, (_, i) =>
      post(platform.baseUrl, "/api/v1/reservations", tenant.live_key, reservation({ hotel_code: tenant.hotel_code }, {
        guests: i % 2 === 0
          ? [{ first_name: "X", phone: x }, { first_name: "Y", phone: y }]
          : [{ first_name: "Y", phone: y }, { first_name: "X", phone: x }]
      }))))
    expect(responses.every((r) => r.status === 201)).toBe(true)
    const rows = await sql`SELECT phone FROM contacts WHERE tenant_id = ${tenant.tenant_id} AND phone = ANY(${[e164(77_001), e164(77_002)]})`
    expect(rows.length).toBe(2)
  }, 60_000)

  it("serialises updates of one reservation in send order", async () => {
    const base = reservation({ hotel_code: tenant.hotel_code })
    for (let i = 1; i <= 20; i++) {
      const res = await post(platform.baseUrl, "/api/v1/reservations", tenant.live_key, { ...base, amount: i })
      expect(res.status).toBe(i === 1 ? 201 : 200)
    }
    const [row] = await sql`SELECT amount::float8 AS amount, version FROM reservations WHERE external_id = ${base.reservation_id}`
    expect(row).toEqual({ amount: 20, version: 20 })
  })
})
