import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { randomUUID } from "node:crypto"
import { reservation, uniqueId } from "../support/fixtures.ts"
import { outboxMessages } from "../support/outbox.ts"
import { createTenant, request, startPlatform, testSql, type RunningPlatform, type TestTenant } from "../support/platform.ts"

let platform: RunningPlatform
let tenant: TestTenant
let other: TestTenant
/** A second hotel of the tenant, for hotel-specific rate codes. */
let hotel2: { id: string; code: string }
const sql = testSql()

const as = (key: string, method: string, path: string, body?: unknown) => request(platform.baseUrl, method, path, body === undefined ? { key } : { key, body })
const api = (method: string, path: string, body?: unknown) => as(tenant.live_key, method, path, body)
const account = async (body: Record<string, unknown>, key = tenant.live_key) => {
  const res = await as(key, "POST", "/b2b/accounts", { type: "agency", name: uniqueId("Acc"), ...body })
  expect(res.status, JSON.stringify(res.body)).toBe(201)
  return res.body.data.account_id as string
}
const upsert = async (body: Record<string, unknown>, key = tenant.live_key) => {
  const res = await as(key, "POST", "/api/v1/reservations", body)
  expect(res.status, JSON.stringify(res.body)).toBeLessThan(300)
  return res.body.data
}
const attributionOf = async (reservationId: string, key = tenant.live_key) => {
  const res = await as(key, "GET", `/api/v1/reservations/${encodeURIComponent(reservationId)}`)
  expect(res.status).toBe(200)
  return res.body.data.attribution
}

// One set of accounts whose codes a single reservation can match all at once.
const codes = { agency: uniqueId("AG"), promo: uniqueId("PROMO"), rate: uniqueId("RC"), external: uniqueId("TA"), domain: `${randomUUID().slice(0, 8)}-corp.com` }
const ids = {} as Record<"agency" | "promo" | "rateAtHotel" | "rateChain" | "agencyId" | "domain", string>

beforeAll(async () => {
  platform = await startPlatform("b2battr")
  ;[tenant, other] = await Promise.all([createTenant("attr"), createTenant("attr-other")])
  const code = `H2-${randomUUID().slice(0, 8)}`
  const [h] = await sql`INSERT INTO hotels (tenant_id, code, name, timezone) VALUES (${tenant.tenant_id}, ${code}, ${`Hotel ${code}`}, 'Europe/Madrid') RETURNING id`
  hotel2 = { id: h!.id as string, code }
  ids.agency = await account({ codes: { agency_codes: [codes.agency] } })
  ids.promo = await account({ codes: { promo_codes: [codes.promo] } })
  ids.rateAtHotel = await account({ type: "corporate", codes: { rate_codes: [{ code: codes.rate, hotel_id: tenant.hotel_id, valid_from: "2026-01-01", valid_to: "2026-12-31" }] } })
  ids.rateChain = await account({ type: "corporate", codes: { rate_codes: [{ code: codes.rate }] } })
  ids.agencyId = await account({ external_id: codes.external })
  ids.domain = await account({ type: "corporate", email_domains: [codes.domain] })
})
afterAll(async () => {
  await platform?.stop()
  await sql.end()
})

/** A reservation carrying a code of every rule, and a holder at the corporate domain. */
const matchingAll = (overrides: Record<string, unknown> = {}) => reservation({ hotel_code: tenant.hotel_code }, {
  agency_code: ` ${codes.agency.toLowerCase()} `,
  booking_date: "2026-06-01",
  metadata: { promo_code: codes.promo, agency_id: codes.external },
  stays: [{ start_date: "2026-12-01", end_date: "2026-12-04", rate_code: "BAR" }, { start_date: "2026-12-04", end_date: "2026-12-04", rate_code: codes.rate }],
  guests: [{ first_name: "Ana", email: `ana.lopez@${codes.domain}`, is_holder: true }],
  ...overrides
})

describe("automatic attribution, first match wins", () => {
  it("applies each rule in order as the reservation loses the codes of the ones before, and emits the change each time", async () => {
    const body = matchingAll()
    const created = await upsert(body)
    expect(await attributionOf(body.reservation_id)).toEqual({
      account_id: ids.agency, rule: "agency_code", matched: codes.agency, path: [ids.agency], suggestion: null, manual: false,
      deal_id: null, decided_at: expect.any(String)
    })
    const steps: Array<[Record<string, unknown>, Record<string, unknown>]> = [
      // Without the agency code: the promo code.
      [{ agency_code: null }, { account_id: ids.promo, rule: "promo_code", matched: codes.promo }],
      // Without the promo code: the stays' rate codes in order (BAR is nobody's), hotel-specific before chain-wide.
      [{ agency_code: null, metadata: { agency_id: codes.external } }, { account_id: ids.rateAtHotel, rule: "rate_code", matched: codes.rate }],
      // At another hotel only the chain-wide registration applies.
      [{ agency_code: null, metadata: { agency_id: codes.external }, hotel_code: hotel2.code, hotel_id: undefined }, { account_id: ids.rateChain, rule: "rate_code" }],
      // Booked outside the hotel-specific code's validity: the chain-wide one (no validity) again.
      [{ agency_code: null, metadata: { agency_id: codes.external }, booking_date: "2025-12-31" }, { account_id: ids.rateChain, rule: "rate_code" }],
      // Without rate codes: the agency id (the account's external id).
      [{ agency_code: null, metadata: { agency_id: codes.external }, stays: [] }, { account_id: ids.agencyId, rule: "agency_id", matched: codes.external }],
      // Nothing but the holder's corporate domain: a suggestion, no account.
      [{ agency_code: null, metadata: null, stays: [] }, {
        account_id: null, rule: null, matched: null, path: [], suggestion: { account_id: ids.domain, rule: "email_domain", matched: codes.domain }
      }]
    ]
    for (const [change, expected] of steps) {
      await upsert({ ...body, ...change })
      expect(await attributionOf(body.reservation_id), JSON.stringify(change)).toMatchObject(expected)
    }
    const events = (await outboxMessages(platform.config.namespace, tenant.tenant_id))
      .filter((m) => m.subject.endsWith("cmd.webhook.reservation.attribution_changed"))
      .map((m) => m.payload as { event_type: string; data: { reservation: { id: string }; attribution: { account_id: string | null }; previous: { account_id: string | null } | null } })
      .filter((p) => p.data.reservation.id === created.reservation_id)
    // One event per change (the validity step decided as the step before it: no event).
    expect(events.map((e) => [e.data.previous?.account_id ?? null, e.data.attribution.account_id])).toEqual([
      [null, ids.agency], [ids.agency, ids.promo], [ids.promo, ids.rateAtHotel], [ids.rateAtHotel, ids.rateChain],
      [ids.rateChain, ids.agencyId], [ids.agencyId, null]
    ])
    expect(events[0]).toMatchObject({ event_type: "reservation.attribution_changed", data: { reservation: { reservation_id: body.reservation_id, status: "confirmed" } } })
  })

  it("is an outbound webhook event type partners can subscribe to", async () => {
    const res = await api("POST", "/api/v1/webhooks", { url: "https://93.184.215.14/hooks/b2b", event_types: ["reservation.attribution_changed"], enabled: false })
    expect(res.status, JSON.stringify(res.body)).toBe(201)
  })

  it("matches the IATA number sent as agency id or as agency code; attributes in a batch, each reservation on its own", async () => {
    const iataAccount = await account({ codes: { iata: "8765432-1" } })
    const batch = await as(tenant.live_key, "POST", "/api/v1/reservations/batch", {
      reservations: [
        reservation({ hotel_code: tenant.hotel_code }, { agency_code: "87654321" }),
        reservation({ hotel_code: tenant.hotel_code }, { metadata: { iata: "87 654 321" } }),
        reservation({ hotel_code: tenant.hotel_code }, { agency_code: codes.agency }),
        reservation({ hotel_code: tenant.hotel_code }, { agency_code: "NOBODY" })
      ]
    })
    expect(batch.status).toBe(200)
    const rows = batch.body.data.results.map((r: { data: { external_reservation_id: string } }) => r.data.external_reservation_id)
    const got = await Promise.all(rows.map((id: string) => attributionOf(id)))
    expect(got.map((a) => [a.account_id, a.rule])).toEqual([[iataAccount, "agency_id"], [iataAccount, "agency_id"], [ids.agency, "agency_code"], [null, null]])
  })

  it("never suggests from a free-mail domain, nor from a domain two accounts share", async () => {
    // Registration refuses free-mail domains; one written behind the API's back must still never suggest.
    const gmailId = randomUUID()
    await sql`INSERT INTO b2b_accounts (id, tenant_id, sandbox, name, type, path, depth, email_domains)
      VALUES (${gmailId}, ${tenant.tenant_id}, false, 'Gmail Inc', 'corporate', ARRAY[${gmailId}::uuid], 1, '{gmail.com}')`
    const free = reservation({ hotel_code: tenant.hotel_code }, { guests: [{ first_name: "Bo", email: "bo.smith@gmail.com", is_holder: true }] })
    await upsert(free)
    expect(await attributionOf(free.reservation_id)).toMatchObject({ account_id: null, suggestion: null })
    const shared = `${randomUUID().slice(0, 8)}-shared.com`
    await account({ email_domains: [shared] })
    await account({ email_domains: [shared] })
    const twice = reservation({ hotel_code: tenant.hotel_code }, { guests: [{ first_name: "Cy", email: `cy@${shared}`, is_holder: true }] })
    await upsert(twice)
    expect((await attributionOf(twice.reservation_id)).suggestion).toBeNull()
  })
})

describe("manual attribution", () => {
  it("sticks through later upserts until it is removed; removing it lets the rules decide again at once", async () => {
    const body = matchingAll()
    await upsert(body)
    const assigned = await api("PUT", `/b2b/reservations/${encodeURIComponent(body.reservation_id)}/attribution`, { account_id: ids.domain })
    expect(assigned.status, JSON.stringify(assigned.body)).toBe(200)
    expect(assigned.body.data).toEqual({
      reservation_id: body.reservation_id,
      attribution: { account_id: ids.domain, rule: "manual", matched: null, path: [ids.domain], suggestion: null, manual: true, deal_id: null, decided_at: expect.any(String) }
    })
    await upsert({ ...body, status: "modified" })
    expect(await attributionOf(body.reservation_id)).toMatchObject({ account_id: ids.domain, rule: "manual", manual: true })
    const none = await api("PUT", `/b2b/reservations/${encodeURIComponent(body.reservation_id)}/attribution`, { account_id: null })
    expect(none.body.data.attribution).toMatchObject({ account_id: null, rule: "manual", manual: true })
    await upsert(body)
    expect(await attributionOf(body.reservation_id)).toMatchObject({ account_id: null, manual: true })
    const cleared = await api("DELETE", `/b2b/reservations/${encodeURIComponent(body.reservation_id)}/attribution`)
    expect(cleared.status).toBe(200)
    expect(cleared.body.data.attribution).toMatchObject({ account_id: ids.agency, rule: "agency_code", manual: false })
  })

  it("refuses an unknown reservation (404), an account of another tenant or unknown (422), and bad input (400)", async () => {
    const body = reservation({ hotel_code: tenant.hotel_code })
    await upsert(body)
    const path = `/b2b/reservations/${encodeURIComponent(body.reservation_id)}/attribution`
    expect((await api("PUT", "/b2b/reservations/NO-SUCH/attribution", { account_id: ids.agency })).status).toBe(404)
    const foreign = await account({}, other.live_key)
    for (const accountId of [foreign, randomUUID()]) {
      const res = await api("PUT", path, { account_id: accountId })
      expect(res.status).toBe(422)
      expect(res.body.error).toMatchObject({ code: "ACCOUNT_NOT_FOUND", details: { account_id: ["no such account"] } })
    }
    const bad = await api("PUT", path, { account_id: "x" })
    expect(bad.status).toBe(400)
    expect(bad.body.error.details).toHaveProperty("account_id")
    expect((await api("PUT", path, {})).status).toBe(400)
    expect((await attributionOf(body.reservation_id)).account_id).toBeNull()
    // Another tenant cannot touch this reservation.
    expect((await as(other.live_key, "PUT", path, { account_id: foreign })).status).toBe(404)
    expect((await as(other.live_key, "DELETE", path)).status).toBe(404)
  })
})

describe("tenant isolation", () => {
  it("another tenant's reservation carrying this tenant's codes is not attributed to this tenant's accounts", async () => {
    const theirs = reservation({ hotel_code: other.hotel_code }, { agency_code: codes.agency, metadata: { promo_code: codes.promo } })
    await upsert(theirs, other.live_key)
    expect(await attributionOf(theirs.reservation_id, other.live_key)).toMatchObject({ account_id: null, rule: null, suggestion: null })
    const sandbox = reservation({ hotel_code: tenant.hotel_code }, { agency_code: codes.agency })
    await upsert(sandbox, tenant.test_key)
    expect((await attributionOf(sandbox.reservation_id, tenant.test_key)).account_id).toBeNull()
  })
})

describe("production roll-up", () => {
  it("equals the sums over the reservations attributed to the account and its descendants (cancelled and no-show excluded)", async () => {
    const code = () => uniqueId("RU")
    const [rootCode, k1Code, k2Code, gCode] = [code(), code(), code(), code()]
    const root = await account({ type: "consortium", codes: { agency_codes: [rootCode] } })
    const k1 = await account({ parent_id: root, codes: { agency_codes: [k1Code] } })
    const k2 = await account({ parent_id: root, codes: { agency_codes: [k2Code] } })
    const g = await account({ parent_id: k1, codes: { agency_codes: [gCode] } })
    const book = (agency_code: string, check_in: string, check_out: string, extra: Record<string, unknown>) =>
      upsert(reservation({ hotel_code: tenant.hotel_code }, { agency_code, check_in, check_out, ...extra }))
    await book(rootCode, "2027-01-01", "2027-01-04", { amount: 300, currency: "EUR" })
    await book(k1Code, "2027-01-01", "2027-01-03", { amount: 200.5, currency: "EUR" })
    await book(gCode, "2027-01-01", "2027-01-02", { amount: 50, currency: "USD" })
    await book(k2Code, "2027-02-01", "2027-02-06", {})
    await book(k2Code, "2027-02-01", "2027-02-11", { amount: 999, currency: "EUR", status: "cancelled" })
    await book(k1Code, "2027-02-01", "2027-02-11", { amount: 999, currency: "EUR", status: "no_show" })

    const detail = (await api("GET", `/b2b/accounts/${root}`)).body.data
    const [expected] = await sql`
      SELECT count(*)::int AS reservations, sum(r.nights)::int AS room_nights,
        sum(r.amount) FILTER (WHERE r.currency = 'EUR')::float8 AS eur, sum(r.amount) FILTER (WHERE r.currency = 'USD')::float8 AS usd
      FROM b2b_attributions t JOIN reservations r ON r.id = t.reservation_id JOIN b2b_accounts a ON a.id = t.account_id
      WHERE a.path @> ARRAY[${root}::uuid] AND r.status NOT IN ('cancelled', 'no_show')`
    expect(expected).toEqual({ reservations: 4, room_nights: 3 + 2 + 1 + 5, eur: 500.5, usd: 50 })
    expect(detail.production.reservations).toBe(expected!.reservations)
    expect(detail.production.room_nights).toBe(expected!.room_nights)
    expect(detail.production.revenue).toEqual(expect.arrayContaining([{ currency: "EUR", amount: 500.5 }, { currency: "USD", amount: 50 }]))
    expect(detail.production.revenue).toHaveLength(2)
    const child = (id: string) => detail.children.find((c: { account_id: string }) => c.account_id === id).production
    expect(child(k1)).toEqual({ reservations: 2, room_nights: 3, revenue: expect.arrayContaining([{ currency: "EUR", amount: 200.5 }, { currency: "USD", amount: 50 }]) })
    expect(child(k2)).toEqual({ reservations: 1, room_nights: 5, revenue: [] })
    const leaf = (await api("GET", `/b2b/accounts/${g}`)).body.data
    expect(leaf.production).toEqual({ reservations: 1, room_nights: 1, revenue: [{ currency: "USD", amount: 50 }] })
  })
})
