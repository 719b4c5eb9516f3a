import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { randomUUID } from "node:crypto"
import { reservation } from "../support/fixtures.ts"
import { insertContact, insertJourney, insertMessage, insertRun } from "../support/consoleRows.ts"
import { createKey, createTenant, post, request, startPlatform, testSql, type RunningPlatform, type TestTenant } from "../support/platform.ts"

// GET /api/v1/overview on stored rows of known UTC days (one a minute either side of midnight), two hotels, and
// another tenant's rows on the same days that must never count.
let platform: RunningPlatform
let tenant: TestTenant
let other: TestTenant
let hotel2: string
const sql = testSql()

const overview = async (t: TestTenant, query: string, key = t.live_key) => request(platform.baseUrl, "GET", `/api/v1/overview${query}`, { key })

const insertReservation = async (t: TestTenant, hotelId: string, createdAt: string) =>
  sql`INSERT INTO reservations (id, tenant_id, sandbox, external_id, hotel_id, check_in, check_out, nights, status, guest_stage, source, created_at, updated_at)
    VALUES (${randomUUID()}, ${t.tenant_id}, false, ${randomUUID()}, ${hotelId}, '2026-12-01', '2026-12-03', 2, 'confirmed', 'pre_stay', 'pms', ${createdAt}, ${createdAt})`

const attempt = async (t: TestTenant, sub: string, outcome: string, at: string) =>
  sql`INSERT INTO webhook_deliveries (id, subscription_id, tenant_id, sandbox, event_id, event_type, attempt, outcome, duration_ms, attempted_at)
    VALUES (${randomUUID()}, ${sub}, ${t.tenant_id}, false, ${randomUUID()}, 'contact.created', 1, ${outcome}, 5, ${at})`

/** One account's rows for 2026-10-01..03 (UTC), and some just outside. */
const fill = async (t: TestTenant, h1: string, h2: string) => {
  const s = { tenant_id: t.tenant_id }
  await insertReservation(t, h1, "2026-10-01T00:00:00Z")
  await insertReservation(t, h1, "2026-10-01T23:59:59Z")
  await insertReservation(t, h2, "2026-10-02T12:00:00Z")
  await insertReservation(t, h1, "2026-09-30T23:59:59Z")
  await insertReservation(t, h1, "2026-10-04T00:00:00Z")
  const c1 = await insertContact(sql, s, { created_at: "2026-10-01T08:00:00Z", hotel_id: h1 })
  await insertContact(sql, s, { created_at: "2026-10-01T09:00:00Z", hotel_id: h1 })
  await insertContact(sql, s, { created_at: "2026-10-01T10:00:00Z" })
  await insertContact(sql, s, { created_at: "2026-09-30T23:59:00Z", hotel_id: h1 })
  const journey = await insertJourney(sql, s)
  await insertRun(sql, s, { journey_id: journey, contact_id: c1, hotel_id: h1, started_at: "2026-10-02T09:00:00Z" })
  await insertRun(sql, s, { journey_id: journey, contact_id: c1, hotel_id: null, started_at: "2026-10-02T10:00:00Z" })
  for (const status of ["sent", "delivered", "read", "read", "failed", "skipped", "queued"]) {
    await insertMessage(sql, s, { contact_id: c1, hotel_id: h1, status, created_at: "2026-10-01T12:00:00Z" })
  }
  await insertMessage(sql, s, { contact_id: c1, hotel_id: h1, channel: "whatsapp", direction: "inbound", status: "received", created_at: "2026-10-01T12:00:00Z" })
  await insertMessage(sql, s, { contact_id: c1, hotel_id: h2, channel: "whatsapp", status: "read", created_at: "2026-10-03T12:00:00Z" })
  await insertMessage(sql, s, { contact_id: c1, status: "delivered", created_at: "2026-10-03T13:00:00Z" })
  const sub = randomUUID()
  await sql`INSERT INTO webhook_subscriptions (id, tenant_id, sandbox, url, event_types, enabled, max_attempts, initial_backoff_seconds, max_backoff_seconds, secret_encrypted)
    VALUES (${sub}, ${t.tenant_id}, false, 'https://93.184.215.14/', '{*}', false, 1, 1, 1, '\\x00')`
  for (const outcome of ["succeeded", "succeeded", "failed", "gone", "skipped"]) await attempt(t, sub, outcome, "2026-10-03T15:00:00Z")
}

const none = { sent: 0, delivered: 0, read: 0, failed: 0, skipped: 0 }
const day = (date: string, hotel_id: string | null, o: Record<string, unknown>) => ({
  date, hotel_id, reservations_received: 0, contacts_created: 0, journey_entries: 0, messages: { email: none, whatsapp: none },
  webhooks: { succeeded: 0, failed: 0 }, ...o
})

beforeAll(async () => {
  platform = await startPlatform("overview")
  tenant = await createTenant("overview")
  other = await createTenant("overview-other")
  const [h] = await sql`INSERT INTO hotels (tenant_id, code, name, timezone) VALUES (${tenant.tenant_id}, 'OV2', ${`Second ${randomUUID()}`}, 'America/New_York') RETURNING id`
  hotel2 = h!.id as string
  await fill(tenant, tenant.hotel_id, hotel2)
  await fill(other, other.hotel_id, other.hotel_id)
})
afterAll(async () => {
  await platform?.stop()
  await sql.end()
})

describe("GET /api/v1/overview", () => {
  it("counts each UTC day and hotel: reservations, contacts, journey entries, messages by channel and outcome, webhook attempts", async () => {
    const res = await overview(tenant, "?from=2026-10-01&to=2026-10-03")
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    const expected = [
      day("2026-10-01", tenant.hotel_id, {
        reservations_received: 2, contacts_created: 2,
        messages: { email: { sent: 4, delivered: 3, read: 2, failed: 1, skipped: 1 }, whatsapp: none }
      }),
      day("2026-10-01", null, { contacts_created: 3 }),
      day("2026-10-02", tenant.hotel_id, { journey_entries: 1 }),
      day("2026-10-02", hotel2, { reservations_received: 1 }),
      day("2026-10-02", null, { journey_entries: 1 }),
      day("2026-10-03", hotel2, { messages: { email: none, whatsapp: { sent: 1, delivered: 1, read: 1, failed: 0, skipped: 0 } } }),
      day("2026-10-03", null, { messages: { email: { sent: 1, delivered: 1, read: 0, failed: 0, skipped: 0 }, whatsapp: none }, webhooks: { succeeded: 2, failed: 2 } })
    ].sort((a, b) => a.date.localeCompare(b.date) || (a.hotel_id === null ? 1 : b.hotel_id === null ? -1 : a.hotel_id.localeCompare(b.hotel_id)))
    expect(res.body.data).toEqual({ from: "2026-10-01", to: "2026-10-03", days: expected })
  })

  it("narrows to one hotel: its rows only, contacts_created its new guests, no webhook attempts", async () => {
    const res = await overview(tenant, `?from=2026-10-01&to=2026-10-03&hotel_id=${tenant.hotel_id.toUpperCase()}`)
    expect(res.status).toBe(200)
    expect(res.body.data.days).toEqual([
      day("2026-10-01", tenant.hotel_id, {
        reservations_received: 2, contacts_created: 2,
        messages: { email: { sent: 4, delivered: 3, read: 2, failed: 1, skipped: 1 }, whatsapp: none }
      }),
      day("2026-10-02", tenant.hotel_id, { journey_entries: 1 })
    ])
  })

  it("defaults to the last 14 UTC days, today included, and counts a reservation received through the API today", async () => {
    const today = new Date().toISOString().slice(0, 10)
    const t = await createTenant("overview-today")
    const r = await post(platform.baseUrl, "/api/v1/reservations", t.live_key, reservation({ hotel_code: t.hotel_code }))
    expect(r.status, JSON.stringify(r.body)).toBe(201)
    const res = await overview(t, "")
    expect(res.body.data.to).toBe(today)
    expect(res.body.data.from).toBe(new Date(Date.parse(`${today}T00:00:00Z`) - 13 * 86_400_000).toISOString().slice(0, 10))
    const row = res.body.data.days.find((d: { date: string; hotel_id: string | null }) => d.date === today && d.hotel_id === t.hotel_id)
    expect(row.reservations_received).toBe(1)
    expect(res.body.data.days.find((d: { hotel_id: string | null }) => d.hotel_id === null).contacts_created).toBeGreaterThanOrEqual(1)
  })

  it("answers 400 for a malformed value and 422 for a range it cannot serve, naming from and to", async () => {
    for (const [query, parameter] of [["from=2026-13-01", "from"], ["to=yesterday", "to"], ["from=2026-10-01T00:00:00Z", "from"], ["hotel_id=h1", "hotel_id"]] as const) {
      const res = await overview(tenant, `?${query}`)
      expect(res.status, query).toBe(400)
      expect(Object.keys(res.body.error.details), query).toEqual([parameter])
    }
    const reversed = await overview(tenant, "?from=2026-10-03&to=2026-10-01")
    expect(reversed.status).toBe(422)
    expect(reversed.body.error).toMatchObject({ code: "INVALID_RANGE", details: { to: [expect.any(String)] } })
    const long = await overview(tenant, "?from=2026-01-01&to=2026-04-03")
    expect(long.status).toBe(422)
    expect(Object.keys(long.body.error.details).sort()).toEqual(["from", "to"])
    expect((await overview(tenant, "?from=2026-01-01&to=2026-04-02")).status).toBe(200)
  })

  it("is readable with bookings:read or guests:read, not with another scope, and shows the key's mode only", async () => {
    expect((await overview(tenant, "?from=2026-10-01&to=2026-10-03", (await createKey(tenant.tenant_id, ["bookings:read"])).key)).status).toBe(200)
    expect((await overview(tenant, "?from=2026-10-01&to=2026-10-03", (await createKey(tenant.tenant_id, ["guests:read"])).key)).status).toBe(200)
    expect((await overview(tenant, "?from=2026-10-01&to=2026-10-03", (await createKey(tenant.tenant_id, ["journeys:read"])).key)).status).toBe(403)
    const sandbox = await overview(tenant, "?from=2026-10-01&to=2026-10-03", tenant.test_key)
    expect(sandbox.body.data.days).toEqual([])
  })
})
