import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import fc from "fast-check"
import { createJourney } from "../support/journeys.ts"
import { useEncryptionKey } from "../support/messaging.ts"
import { outboxMessages } from "../support/outbox.ts"
import { createKey, createTenant, request, startPlatform, testSql, type RunningPlatform, type TestTenant } from "../support/platform.ts"
import { browserPost, createSource, guestEmail, ORIGIN, serverPost, type Source, unique } from "./support.ts"

// The website-events ingress end to end: the real platform, real keys, the real actor and PostgreSQL.
useEncryptionKey()
let platform: RunningPlatform
let tenant: TestTenant
let source: Source
const sql = testSql()

beforeAll(async () => {
  platform = await startPlatform("website")
  tenant = await createTenant("website")
  source = await createSource(platform.baseUrl, tenant.live_key)
  // A journey listens to cart.abandoned (and, by default, to checkout.completed as its stop event).
  await createJourney(sql, tenant, {
    name: unique("Cart"), trigger: { type: "event", event: "cart.abandoned" },
    steps: [{ id: "pause", type: "wait", duration: "P1D" }]
  })
})
afterAll(async () => {
  await platform?.stop()
  await sql.end()
})

const cart = (email: string, o: Record<string, unknown> = {}) => ({
  event: "cart.abandoned", contact: { email }, context: { cart_id: unique("cart"), stage: "payment", hotel_code: tenant.hotel_code }, ...o
})
const deliveries = async (s: Source = source) =>
  (await request(platform.baseUrl, "GET", `/api/v1/website-sources/${s.source_id}/deliveries?limit=100`, { key: tenant.live_key })).body.deliveries as Array<any>

describe("website events: server key", () => {
  it("accepts one event (202), creates the contact, stores it because a journey listens, and publishes it", async () => {
    const email = guestEmail()
    const res = await serverPost(platform.baseUrl, source.server_key, cart(email))
    expect(res.status, JSON.stringify(res.body)).toBe(202)
    expect(res.body).toMatchObject({ received: 1, accepted: 1, duplicate: 0, rejected: 0 })
    const r = res.body.results[0]
    expect(r).toMatchObject({ index: 0, status: "accepted", code: "accepted", contact: "created", warnings: [] })
    const [stored] = await sql`SELECT contact_id, hotel_id, payload FROM website_events WHERE id = ${r.event_id}`
    expect(stored!.hotel_id).toBe(tenant.hotel_id)
    const [contact] = await sql`SELECT email FROM contacts WHERE id = ${stored!.contact_id}`
    expect(contact!.email).toBe(email)
    const published = (await outboxMessages(platform.config.namespace, tenant.tenant_id)).find((m) => m.id === r.event_id)
    expect(published?.subject).toMatch(/evt\.cart\.abandoned$/)
    expect(published?.payload).toMatchObject({ origin: "website", event_type: "cart.abandoned", source: source.source_id, data: { context: { stage: "payment" } } })
  })

  it("rule 7: an event nobody awaits is counted, not stored, and a repeat is accepted again", async () => {
    const body = { event: "search.performed", idempotency_key: unique("ik"), contact: { email: guestEmail() } }
    const a = await serverPost(platform.baseUrl, source.server_key, body)
    const b = await serverPost(platform.baseUrl, source.server_key, body)
    expect(a.body.results[0].status).toBe("accepted")
    expect(b.body.results[0].status).toBe("accepted")
    expect(await sql`SELECT 1 FROM website_events WHERE id = ${a.body.results[0].event_id}`).toHaveLength(0)
  })

  it("rule 6: the same idempotency_key is a duplicate with the original id; without a key, the same cart within a minute too", async () => {
    const email = guestEmail()
    const body = cart(email, { idempotency_key: unique("ik") })
    const a = await serverPost(platform.baseUrl, source.server_key, body)
    const b = await serverPost(platform.baseUrl, source.server_key, body)
    expect(b.status).toBe(202)
    expect(b.body).toMatchObject({ accepted: 0, duplicate: 1 })
    expect(b.body.results[0].event_id).toBe(a.body.results[0].event_id)
    const natural = cart(email)
    const c = await serverPost(platform.baseUrl, source.server_key, natural)
    const d = await serverPost(platform.baseUrl, source.server_key, natural)
    expect(c.body.results[0]).toMatchObject({ status: "accepted", contact: "matched" })
    expect(d.body.results[0]).toMatchObject({ status: "duplicate", event_id: c.body.results[0].event_id })
    expect(await sql`SELECT 1 FROM website_events WHERE contact_id = (SELECT id FROM contacts WHERE email = ${email})`).toHaveLength(2)
    // Inside one batch too: the same event for the same cart twice, and one idempotency key twice.
    const twice = cart(guestEmail())
    const keyed = cart(guestEmail(), { idempotency_key: unique("ik") })
    const batch = await serverPost(platform.baseUrl, source.server_key, { events: [twice, keyed, twice, keyed] })
    expect(batch.body).toMatchObject({ accepted: 2, duplicate: 2 })
    expect(batch.body.results[2].event_id).toBe(batch.body.results[0].event_id)
    expect(batch.body.results[3].event_id).toBe(batch.body.results[1].event_id)
  })

  it("rule 9: a single invalid event is 422 with issues; in a batch it is judged on its own inside 202", async () => {
    const bad = { event: "Cart Abandoned", extra: 1, contact: { email: "not-an-address", shoe: 1 }, context: { check_in: "2027-02-30", adults: 31 } }
    const single = await serverPost(platform.baseUrl, source.server_key, bad)
    expect(single.status).toBe(422)
    expect(single.body.results[0]).toMatchObject({ status: "rejected", code: "invalid_event", event_id: null, contact: "none" })
    const fields = single.body.results[0].issues.map((i: any) => i.field).sort()
    expect(fields).toEqual(["contact.email", "contact.shoe", "context.adults", "context.check_in", "event", "extra"])
    const batch = await serverPost(platform.baseUrl, source.server_key, { events: [bad, cart(guestEmail())] })
    expect(batch.status).toBe(202)
    expect(batch.body).toMatchObject({ received: 2, accepted: 1, rejected: 1 })
    expect(batch.body.results.map((r: any) => r.index)).toEqual([0, 1])
  })

  it("rule 1: a contact is matched by phone as by email, else created", async () => {
    const phone = `+34 6${String(Math.floor(Math.random() * 1e8)).padStart(8, "1")}`
    const first = await serverPost(platform.baseUrl, source.server_key, { event: "lead.captured", contact: { phone } })
    const second = await serverPost(platform.baseUrl, source.server_key, { event: "lead.captured", contact: { phone, email: guestEmail() } })
    expect(first.body.results[0].contact).toBe("created")
    expect(second.body.results[0].contact).toBe("matched")
    expect(await sql`SELECT 1 FROM contacts WHERE tenant_id = ${tenant.tenant_id} AND phone = ${phone.replace(/\s/g, "")}`).toHaveLength(1)
  })

  it("rules 1, 2, 8: role accounts refused as people, no contact without email or phone, test events write nothing", async () => {
    const res = await serverPost(platform.baseUrl, source.server_key, {
      events: [
        cart("reservations@hotel-guests.net"),
        { event: "lead.captured", context: { session_id: unique("s") } },
        cart(guestEmail(), { test: true })
      ]
    })
    expect(res.status).toBe(202)
    expect(res.body.results[0]).toMatchObject({ status: "accepted", code: "refused_not_person", contact: "none" })
    expect(res.body.results[1]).toMatchObject({ status: "accepted", contact: "none", warnings: [{ code: "no_contact" }] })
    expect(res.body.results[2]).toMatchObject({ status: "accepted", code: "test_event", event_id: null, contact: "none" })
    expect(await sql`SELECT 1 FROM contacts WHERE tenant_id = ${tenant.tenant_id} AND email = 'reservations@hotel-guests.net'`).toHaveLength(0)
  })

  it("per-event codes: event_not_allowed, hotel_unknown, hotel_not_allowed, occurred_at_too_old, occurred_at_in_future", async () => {
    const other = await request(platform.baseUrl, "POST", "/api/v1/website-sources", {
      key: tenant.live_key,
      body: { name: "Narrow", allowed_origins: [ORIGIN], allowed_events: ["cart.abandoned"], allowed_hotels: [tenant.hotel_id] }
    })
    expect(other.status, JSON.stringify(other.body)).toBe(201)
    const e = guestEmail()
    const res = await serverPost(platform.baseUrl, other.body.server_key, {
      events: [
        { event: "room.selected", contact: { email: e } },
        cart(e, { context: { hotel_code: "NO-SUCH-HOTEL" } }),
        cart(e, { occurred_at: new Date(Date.now() - 8 * 86_400_000).toISOString() }),
        cart(e, { occurred_at: new Date(Date.now() + 10 * 60_000).toISOString() })
      ]
    })
    expect(res.body.results.map((r: any) => r.code)).toEqual(["event_not_allowed", "hotel_unknown", "occurred_at_too_old", "occurred_at_in_future"])
    const [otherHotel] = await sql`INSERT INTO hotels (tenant_id, code, name, timezone) VALUES (${tenant.tenant_id}, ${unique("H2")}, ${unique("Hotel Two")}, 'Europe/Madrid') RETURNING id`
    const res2 = await serverPost(platform.baseUrl, other.body.server_key, cart(e, { context: { hotel_id: otherHotel!.id } }))
    expect(res2.body.results[0].code).toBe("hotel_not_allowed")
  })

  it("request-level errors carry { error: { code, message, fix, docs } }", async () => {
    const expectError = (res: { status: number; body: any }, status: number, code: string) => {
      expect(res.status, JSON.stringify(res.body)).toBe(status)
      expect(res.body.error).toMatchObject({ code, message: expect.any(String), fix: expect.any(String), docs: expect.any(String) })
    }
    expectError(await serverPost(platform.baseUrl, source.server_key, "{not json"), 400, "invalid_json")
    expectError(await serverPost(platform.baseUrl, source.server_key, [cart(guestEmail())]), 422, "invalid_body")
    expectError(await serverPost(platform.baseUrl, source.server_key, { events: [], other: 1 }), 422, "invalid_body")
    expectError(await serverPost(platform.baseUrl, source.server_key, { events: [] }), 422, "batch_empty")
    expectError(await serverPost(platform.baseUrl, source.server_key, { events: Array.from({ length: 51 }, () => cart(guestEmail())) }), 413, "batch_too_large")
    expectError(await serverPost(platform.baseUrl, source.server_key, { event: "x", pad: "a".repeat(70_000) }), 413, "body_too_large")
    expectError(await serverPost(platform.baseUrl, "svc_sk_" + "a".repeat(40), cart(guestEmail())), 401, "unauthorized")
    expectError(await serverPost(platform.baseUrl, "", cart(guestEmail())), 401, "unauthorized")
    // A server key never travels in a query string.
    expectError(await request(platform.baseUrl, "POST", `/api/v1/website-events?key=${source.server_key}`, { raw: "{}" }), 401, "unauthorized")
  })
})

describe("website events: browser key", () => {
  it("accepts text/plain from an allowed origin with CORS headers; refuses an unlisted or missing Origin (403 with CORS)", async () => {
    const ok = await browserPost(platform.baseUrl, source.browser_key, cart(guestEmail()))
    expect(ok.status, JSON.stringify(ok.body)).toBe(202)
    expect(ok.headers.get("access-control-allow-origin")).toBe(ORIGIN)
    expect(ok.headers.get("access-control-expose-headers")).toContain("Retry-After")
    expect(ok.headers.get("access-control-allow-credentials")).toBeNull()
    const viaHeader = await browserPost(platform.baseUrl, source.browser_key, cart(guestEmail()), { viaHeader: true })
    expect(viaHeader.status).toBe(202)
    const unlisted = await browserPost(platform.baseUrl, source.browser_key, cart(guestEmail()), { origin: "https://evil.example.org" })
    expect(unlisted.status).toBe(403)
    expect(unlisted.body.error.code).toBe("origin_not_allowed")
    expect(unlisted.headers.get("access-control-allow-origin")).toBe("https://evil.example.org")
    const none = await browserPost(platform.baseUrl, source.browser_key, cart(guestEmail()), { origin: null })
    expect(none.status).toBe(403)
    expect(none.body.error.code).toBe("origin_not_allowed")
  })

  it("OPTIONS answers 204 with CORS for an allowed origin, without for others", async () => {
    const res = await fetch(`${platform.baseUrl}/api/v1/website-events`, { method: "OPTIONS", headers: { origin: ORIGIN, "access-control-request-method": "POST" } })
    expect(res.status).toBe(204)
    expect(res.headers.get("access-control-allow-origin")).toBe(ORIGIN)
    expect(res.headers.get("access-control-allow-headers")).toContain("X-SVC-Key")
    const other = await fetch(`${platform.baseUrl}/api/v1/website-events`, { method: "OPTIONS", headers: { origin: "https://evil.example.org" } })
    expect(other.status).toBe(204)
    expect(other.headers.get("access-control-allow-origin")).toBeNull()
  })
})

describe("website sources", () => {
  it("two live keys per kind; the oldest can be revoked; a paused source answers 403 source_disabled", async () => {
    const s = await createSource(platform.baseUrl, tenant.live_key)
    const second = await request(platform.baseUrl, "POST", `/api/v1/website-sources/${s.source_id}/keys`, { key: tenant.live_key, body: { kind: "server" } })
    expect(second.status, JSON.stringify(second.body)).toBe(201)
    expect(second.body.key).toMatch(/^svc_sk_/)
    const third = await request(platform.baseUrl, "POST", `/api/v1/website-sources/${s.source_id}/keys`, { key: tenant.live_key, body: { kind: "server" } })
    expect(third.status).toBe(409)
    expect((await serverPost(platform.baseUrl, s.server_key, cart(guestEmail()))).status).toBe(202)
    expect((await serverPost(platform.baseUrl, second.body.key, cart(guestEmail()))).status).toBe(202)
    const browser2 = await request(platform.baseUrl, "POST", `/api/v1/website-sources/${s.source_id}/keys`, { key: tenant.live_key, body: { kind: "browser" } })
    expect(browser2.body.key).toMatch(/^svc_pk_/)
    expect((await browserPost(platform.baseUrl, s.browser_key, cart(guestEmail()))).status).toBe(202)
    expect((await browserPost(platform.baseUrl, browser2.body.key, cart(guestEmail()))).status).toBe(202)
    const view = await request(platform.baseUrl, "GET", `/api/v1/website-sources/${s.source_id}`, { key: tenant.live_key })
    const oldest = view.body.keys.find((k: any) => k.kind === "server")
    expect((await request(platform.baseUrl, "DELETE", `/api/v1/website-sources/${s.source_id}/keys/${oldest.key_id}`, { key: tenant.live_key })).status).toBe(200)
    await new Promise((r) => setTimeout(r, 5_200)) // the ingress reuses a key lookup for 5 s
    expect((await serverPost(platform.baseUrl, s.server_key, cart(guestEmail()))).status).toBe(401)
    expect((await serverPost(platform.baseUrl, second.body.key, cart(guestEmail()))).status).toBe(202)
    const paused = await request(platform.baseUrl, "PATCH", `/api/v1/website-sources/${s.source_id}`, { key: tenant.live_key, body: { enabled: false } })
    expect(paused.status).toBe(200)
    await new Promise((r) => setTimeout(r, 5_200))
    const refused = await serverPost(platform.baseUrl, second.body.key, cart(guestEmail()))
    expect(refused.status).toBe(403)
    expect(refused.body.error.code).toBe("source_disabled")
  })

  it("the delivery log holds every request tied to the source, none with a bad key", async () => {
    const s = await createSource(platform.baseUrl, tenant.live_key)
    await serverPost(platform.baseUrl, s.server_key, cart(guestEmail()))
    await serverPost(platform.baseUrl, s.server_key, "{oops")
    await browserPost(platform.baseUrl, s.browser_key, cart(guestEmail()), { origin: "https://evil.example.org" })
    await serverPost(platform.baseUrl, "svc_sk_" + "b".repeat(40), cart(guestEmail()))
    const log = await deliveries(s)
    expect(log.map((d) => [d.credential, d.status, d.error_code])).toEqual([
      ["browser", 403, "origin_not_allowed"], ["server", 400, "invalid_json"], ["server", 202, null]
    ])
    expect(log[2].results[0].status).toBe("accepted")
  })

  it("a key holding NUL or a lone surrogate is named with \\uXXXX, in the answer and in the delivery log", async () => {
    const s = await createSource(platform.baseUrl, tenant.live_key)
    const res = await serverPost(platform.baseUrl, s.server_key, `{"event":"cart.viewed","properties":{"a\\u0000b":1},"context":{"x\\ud800":1}}`)
    expect(res.status).toBe(422)
    expect(res.body.results[0].issues.map((i: { field: string }) => i.field).sort()).toEqual(["context.x\\ud800", "properties.a\\u0000b"])
    const log = await deliveries(s)
    expect(log.map((d) => [d.status, d.results[0].issues.length])).toEqual([[422, 2]])
  })

  it("refuses a wildcard or path origin, an unknown hotel and a bad mapping, naming each field", async () => {
    const res = await request(platform.baseUrl, "POST", "/api/v1/website-sources", {
      key: tenant.live_key,
      body: {
        name: "Bad", allowed_origins: ["https://*.hotel.com", "https://hotel.com/book"], allowed_hotels: ["00000000-0000-4000-8000-000000000000"],
        mapping: { "contact.shoe": { path: "a" }, event: { path: "__proto__.x" }, "context.stage": { value: "room", transform: "rot13" } }
      }
    })
    expect(res.status).toBe(400)
    expect(Object.keys(res.body.error.details).sort()).toEqual([
      "allowed_hotels[0]", "allowed_origins[0]", "allowed_origins[1]", "mapping.contact.shoe", "mapping.context.stage.transform", "mapping.event.path"
    ])
  })

  it("the catalogue shows a declared event as not received until one arrives", async () => {
    const s = await createSource(platform.baseUrl, tenant.live_key)
    const declared = await request(platform.baseUrl, "POST", `/api/v1/website-sources/${s.source_id}/events`, { key: tenant.live_key, body: { name: "voucher.viewed" } })
    expect(declared.status, JSON.stringify(declared.body)).toBe(201)
    expect(declared.body.status).toBe("not received")
    await serverPost(platform.baseUrl, s.server_key, { event: "voucher.viewed", contact: { email: guestEmail() } })
    const list = await request(platform.baseUrl, "GET", `/api/v1/website-sources/${s.source_id}/events`, { key: tenant.live_key })
    expect(list.body.data.events.find((e: any) => e.name === "voucher.viewed")).toMatchObject({ declared: true, status: "received" })
    expect(list.body).toMatchObject({ success: true, data: { next_cursor: null } })
    // The old top-level list, kept one release beside data.
    expect(list.body.events).toEqual(list.body.data.events)
  })

  it("lists answer the one list shape, with the old top-level fields kept one release", async () => {
    const s = await createSource(platform.baseUrl, tenant.live_key)
    await serverPost(platform.baseUrl, s.server_key, { event: "voucher.viewed", contact: { email: guestEmail() } })
    const sources = await request(platform.baseUrl, "GET", "/api/v1/website-sources", { key: tenant.live_key })
    expect(sources.body.success).toBe(true)
    expect(sources.body.data.sources.map((x: any) => x.source_id)).toContain(s.source_id)
    expect(sources.body.data.next_cursor).toBeNull()
    expect(sources.body.sources).toEqual(sources.body.data.sources)
    const log = await request(platform.baseUrl, "GET", `/api/v1/website-sources/${s.source_id}/deliveries?limit=1`, { key: tenant.live_key })
    expect(log.body.success).toBe(true)
    expect(log.body.data.deliveries).toHaveLength(1)
    expect(log.body.deliveries).toEqual(log.body.data.deliveries)
    expect(log.body.next_cursor).toBe(log.body.data.next_cursor)
  })

  it("a core key without website_sources:manage is refused", async () => {
    const k = await createKey(tenant.tenant_id, ["events:write"])
    const res = await request(platform.baseUrl, "POST", "/api/v1/website-sources", { key: k.key, body: { name: "x", allowed_origins: [] } })
    expect(res.status).toBe(403)
  })
})

describe("website events: limits, switches, consent warnings, retries", () => {
  it("the per-source rate limit answers 429 rate_limited with Retry-After, readable cross-origin", async () => {
    const s = await createSource(platform.baseUrl, tenant.live_key, { rate_limit_per_minute: 2 })
    expect((await browserPost(platform.baseUrl, s.browser_key, cart(guestEmail()))).status).toBe(202)
    expect((await browserPost(platform.baseUrl, s.browser_key, cart(guestEmail()))).status).toBe(202)
    const limited = await browserPost(platform.baseUrl, s.browser_key, cart(guestEmail()))
    expect(limited.status).toBe(429)
    expect(limited.body.error.code).toBe("rate_limited")
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0)
    expect(limited.headers.get("access-control-allow-origin")).toBe(ORIGIN)
    expect(limited.headers.get("access-control-expose-headers")).toContain("Retry-After")
  })

  it("an account with website events switched off answers 403 feature_disabled", async () => {
    const other = await createTenant("website-off")
    const s = await createSource(platform.baseUrl, other.live_key)
    await sql`UPDATE tenants SET website_events_enabled = false WHERE id = ${other.tenant_id}`
    const res = await serverPost(platform.baseUrl, s.server_key, cart(guestEmail()))
    expect(res.status).toBe(403)
    expect(res.body.error.code).toBe("feature_disabled")
  })

  it("consent claims: missing evidence, stale, opted out, source ignoring; false records nothing", async () => {
    const optedOut = guestEmail()
    await serverPost(platform.baseUrl, source.server_key, { event: "lead.captured", contact: { email: optedOut } })
    await sql`UPDATE contacts SET email_opted_out_at = now(), email_consent = false WHERE tenant_id = ${tenant.tenant_id} AND email = ${optedOut}`
    const text = "Send me offers by email, please"
    const fresh = new Date().toISOString()
    const res = await serverPost(platform.baseUrl, source.server_key, {
      events: [
        { event: "lead.captured", contact: { email: guestEmail() }, consent: { email_marketing: true, text } },
        { event: "lead.captured", contact: { email: guestEmail() }, consent: { email_marketing: true, text, captured_at: new Date(Date.now() - 8 * 86_400_000).toISOString() } },
        { event: "lead.captured", contact: { email: optedOut }, consent: { email_marketing: true, text, captured_at: fresh } },
        { event: "lead.captured", contact: { email: guestEmail() }, consent: { email_marketing: false } }
      ]
    })
    expect(res.body.results.map((r: any) => r.warnings.map((w: any) => w.code))).toEqual([
      ["consent_evidence_missing"], ["consent_evidence_stale"], ["consent_ignored_opted_out"], []
    ])
    const [c] = await sql`SELECT email_consent FROM contacts WHERE tenant_id = ${tenant.tenant_id} AND email = ${optedOut}`
    expect(c!.email_consent).toBe(false)
    const ignoring = await createSource(platform.baseUrl, tenant.live_key, { consent_mode: "ignore" })
    const ignored = await serverPost(platform.baseUrl, ignoring.server_key, { event: "lead.captured", contact: { email: guestEmail() }, consent: { email_marketing: true, text, captured_at: fresh } })
    expect(ignored.body.results[0].warnings.map((w: any) => w.code)).toEqual(["consent_source_ignores"])
  })

  it("unavailable (503: an actor answer not confirmed in time) is retried with the same idempotency_key: one stored event", async () => {
    const impatient = await startPlatform("website", { role: "ingress", overrides: { replyTimeoutMs: 1 } })
    try {
      const ik = unique("retry")
      const body = cart(guestEmail(), { idempotency_key: ik })
      const first = await serverPost(impatient.baseUrl, source.server_key, body)
      expect(first.status, JSON.stringify(first.body)).toBe(503)
      expect(first.body.error.code).toBe("unavailable")
      expect(first.headers.get("retry-after")).toBe("2")
      const retry = await serverPost(platform.baseUrl, source.server_key, body)
      expect(retry.status).toBe(202)
      expect(["accepted", "duplicate"]).toContain(retry.body.results[0].status)
      const again = await serverPost(platform.baseUrl, source.server_key, body)
      expect(again.body.results[0]).toMatchObject({ status: "duplicate", event_id: retry.body.results[0].event_id })
      expect(await sql`SELECT 1 FROM website_events WHERE idempotency_key = ${ik}`).toHaveLength(1)
    } finally {
      await impatient.stop()
    }
  })
})

describe("website events: hostile input", () => {
  it("any JSON or bytes, as either key: an answer in the contract's shapes, never a 5xx (property)", async () => {
    const s = await createSource(platform.baseUrl, tenant.live_key, { rate_limit_per_minute: 100_000 })
    const body = fc.oneof(
      fc.jsonValue().map((v) => JSON.stringify(v)),
      fc.record({ event: fc.string(), contact: fc.dictionary(fc.string(), fc.jsonValue()), context: fc.dictionary(fc.string(), fc.jsonValue()) }).map((v) => JSON.stringify({ ...v, test: true })),
      fc.string({ unit: "binary" })
    )
    await fc.assert(fc.asyncProperty(body, fc.boolean(), async (raw, browser) => {
      const res = browser
        ? await request(platform.baseUrl, "POST", `/api/v1/website-events?key=${s.browser_key}`, { raw, contentType: "text/plain", headers: { origin: ORIGIN, "user-agent": unique("fuzz") } })
        : await serverPost(platform.baseUrl, s.server_key, raw)
      expect(res.status, JSON.stringify(res.body)).toBeLessThan(500)
      if (res.status === 202 || (res.status === 422 && res.body.results !== undefined)) expect(res.body.results.length).toBe(res.body.received)
      else expect(res.body.error).toMatchObject({ code: expect.any(String), fix: expect.any(String), docs: expect.any(String) })
    }), { numRuns: 60 })
  })

  it("a browser key is limited per visitor (IP address and user agent)", async () => {
    const s = await createSource(platform.baseUrl, tenant.live_key, { rate_limit_per_minute: 100_000 })
    const visit = (userAgent: string) => browserPost(platform.baseUrl, s.browser_key, { event: "page.viewed", test: true }, { userAgent })
    const statuses: Array<number> = []
    for (let i = 0; i < 121; i++) statuses.push((await visit("one-visitor")).status)
    expect(statuses.slice(0, 120).every((st) => st === 202)).toBe(true)
    const limited = await visit("one-visitor")
    expect(limited.status).toBe(429)
    expect(limited.body.error.code).toBe("rate_limited")
    expect((await visit("another-visitor")).status).toBe(202)
  })
})

