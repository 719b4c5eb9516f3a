import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { phone, reservation } from "../support/fixtures.ts"
import { createKey, createTenant, post, request, revokeKey, startPlatform, testSql, type RunningPlatform, type TestTenant } from "../support/platform.ts"

let platform: RunningPlatform
let a: TestTenant
let b: TestTenant
const sql = testSql()

beforeAll(async () => {
  platform = await startPlatform("auth")
  ;[a, b] = await Promise.all([createTenant("a"), createTenant("b")])
})
afterAll(async () => {
  await platform?.stop()
  await sql.end()
})

const upsert = (key: string | undefined, body: unknown) => post(platform.baseUrl, "/api/v1/reservations", key, body)
const read = (key: string, id: string) => request(platform.baseUrl, "GET", `/api/v1/reservations/${encodeURIComponent(id)}`, { key })

describe("authentication", () => {
  it("answers 401 in the core error shape for a missing, malformed, unknown or revoked key", async () => {
    const body = reservation({ hotel_code: a.hotel_code })
    const key = await createKey(a.tenant_id, ["reservations:write"])
    expect((await upsert(key.key, body)).status).toBe(201)
    await revokeKey(key.key_id)
    await new Promise((r) => setTimeout(r, 5_100)) // the ingress caches a key lookup for at most 5 s
    for (const k of [undefined, "not-a-key", "svckr_" + "A".repeat(32), key.key]) {
      const res = await upsert(k, body)
      expect(res.status).toBe(401)
      expect(res.body).toEqual({ success: false, error: { message: expect.any(String), code: "UNAUTHORIZED", details: {}, request_id: res.headers.get("x-request-id") } })
    }
  }, 20_000)

  it("answers 403 naming the scope when the key lacks it, and accepts a key holding exactly that scope", async () => {
    const readOnly = await createKey(a.tenant_id, ["guests:read"])
    const denied = await upsert(readOnly.key, reservation({ hotel_code: a.hotel_code }))
    expect(denied.status).toBe(403)
    expect(denied.body).toMatchObject({ success: false, error: { code: "FORBIDDEN", details: { required_scope: "reservations:write" } } })
    const writer = await createKey(a.tenant_id, ["reservations:write"])
    expect((await upsert(writer.key, reservation({ hotel_code: a.hotel_code }))).status).toBe(201)
    expect((await read(writer.key, "anything")).status).toBe(403)
  })

  it("rate-limits per key with 429, Retry-After and the core error shape", async () => {
    const limited = await createKey(a.tenant_id, ["*"], { rate: 3 })
    const other = await createKey(a.tenant_id, ["*"], { rate: 3 })
    const statuses: Array<number> = []
    let last
    for (let i = 0; i < 5; i++) {
      last = await read(limited.key, "x")
      statuses.push(last.status)
    }
    expect(statuses).toEqual([404, 404, 404, 429, 429])
    expect(Number(last!.headers.get("retry-after"))).toBeGreaterThanOrEqual(1)
    expect(last!.body).toMatchObject({ success: false, error: { code: "RATE_LIMITED" } })
    expect((await read(other.key, "x")).status).toBe(404) // another key of the same tenant is unaffected
  })
})

describe("tenant isolation", () => {
  it("keeps tenant B's reservation out of tenant A's reach: same reservation_id, separate records", async () => {
    const id = `SHARED-${Date.now()}`
    const p = phone(31337)
    const inB = await upsert(b.live_key, reservation({ hotel_code: b.hotel_code }, { reservation_id: id, amount: 100, guests: [{ first_name: "B", phone: p }] }))
    expect(inB.status).toBe(201)
    expect((await read(a.live_key, id)).status).toBe(404)

    // A cannot use B's hotel either.
    const viaBHotel = await upsert(a.live_key, reservation({ hotel_id: b.hotel_id }, { reservation_id: id }))
    expect(viaBHotel.status).toBe(422)

    const inA = await upsert(a.live_key, reservation({ hotel_code: a.hotel_code }, { reservation_id: id, amount: 999, guests: [{ first_name: "A", phone: p }] }))
    expect(inA.status).toBe(201)
    expect(inA.body.data.reservation_id).not.toBe(inB.body.data.reservation_id)
    expect(inA.body.data.contacts[0].contact_id).not.toBe(inB.body.data.contacts[0].contact_id)

    const stillB = await read(b.live_key, id)
    expect(stillB.body.data).toMatchObject({ amount: 100, reservation_id: inB.body.data.reservation_id })
    const [contactB] = await sql`SELECT first_name, tenant_id FROM contacts WHERE id = ${inB.body.data.contacts[0].contact_id}`
    expect(contactB).toEqual({ first_name: "B", tenant_id: b.tenant_id })
  })

  it("keeps sandbox data apart from live data for the same tenant", async () => {
    const id = `SBX-${Date.now()}`
    const p = phone(27182)
    const live = await upsert(a.live_key, reservation({ hotel_code: a.hotel_code }, { reservation_id: id, guests: [{ first_name: "Live", phone: p }] }))
    expect(live.status).toBe(201)
    expect((await read(a.test_key, id)).status).toBe(404)
    const sandbox = await upsert(a.test_key, reservation({ hotel_code: a.hotel_code }, { reservation_id: id, guests: [{ first_name: "Test", phone: p }] }))
    expect(sandbox.status).toBe(201)
    expect(sandbox.body.data.contacts[0].is_new).toBe(true)
    expect(sandbox.body.data.contacts[0].contact_id).not.toBe(live.body.data.contacts[0].contact_id)
    const [liveContact] = await sql`SELECT first_name, sandbox FROM contacts WHERE id = ${live.body.data.contacts[0].contact_id}`
    expect(liveContact).toEqual({ first_name: "Live", sandbox: false })
    expect((await read(a.live_key, id)).body.data.reservation_id).toBe(live.body.data.reservation_id)
  })
})
