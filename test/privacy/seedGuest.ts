import { expect } from "@effect/vitest"
import { randomUUID } from "node:crypto"
import type postgres from "postgres"
import { encode } from "../../streams/msgpack.ts"
import { absolute, basic, browser, codeFor, newClient, pkce, startInteraction } from "../oidc/support.ts"
import { configure as configureNewsletter, linkIn, ORIGIN as NEWSLETTER_ORIGIN, signUp, submitConfirm } from "../newsletter/support.ts"
import { uniqueId } from "../support/fixtures.ts"
import { createJourney, runIn } from "../support/journeys.ts"
import { request } from "../support/platform.ts"
import { eventually, subscribe } from "../support/webhook.ts"
import { inboundValue, signWhatsAppBody, webhookEnvelope } from "../support/whatsappWire.ts"
import { createSource, serverPost } from "../website/support.ts"
import { letters, type Person, type PrivacyHarness } from "./harness.ts"

// One guest through every family of the platform, beside a companion on the same reservation.

/** The E.164 number as a PMS sends it (with spaces): the stores must find it in its stored spelling. */
const spaced = (e164Phone: string) => `${e164Phone.slice(0, 3)} ${e164Phone.slice(3)}`

export interface Seeded {
  readonly subjectContactId: string
  readonly companionContactId: string
  readonly reservationId: string
  readonly memberId: string
}

/**
 * The subject through every family (reservation with the companion, guest upsert with a custom field and an
 * Idempotency-Key, core event, journey run and its email, an API email, website event with consent evidence, CDP
 * visitor identified, WhatsApp inbound, call with transcript, loyalty member with earns and a hold, SSO sign-in,
 * newsletter confirmed, webhooks delivered), an identity conflict between the two, and copies the platform keeps
 * encoded (a dead letter, an unpublished outbox batch naming both). Returns once the platform has settled.
 */
export const seedEveryFamily = async (h: PrivacyHarness, s: Person, c: Person): Promise<Seeded> => {
  const { platform, tenant, sql } = h
  const api = async (method: string, path: string, body?: unknown, headers?: Record<string, string>) => {
    const res = await request(platform.baseUrl, method, path, { key: tenant.live_key, ...(body === undefined ? {} : { body }), ...(headers ? { headers } : {}) })
    expect(res.status, `${method} ${path}: ${JSON.stringify(res.body)}`).toBeLessThan(300)
    return res.body.data
  }

  // Every webhook, delivered to a real HTTPS receiver (the delivery log keeps each body 14 days).
  await subscribe(platform.baseUrl, tenant.live_key, { url: h.receiver.url("/hooks"), event_types: ["*"] })
  // Journeys: one on a core event (sends an email), one listening to website carts (website events are stored then).
  const trigger = `privacy.${letters()}`
  const journeyId = await createJourney(sql, tenant, {
    name: "Privacy welcome", trigger: { type: "event", event: trigger },
    steps: [{ id: "hello", type: "email", category: "utility", subject: "Hello {{contact_first_name}}", text: "Dear {{contact_last_name}}, we write to {{contact_email}}" }, { id: "done", type: "end" }]
  })
  await createJourney(sql, tenant, { name: "Cart", trigger: { type: "event", event: "cart.abandoned" }, steps: [{ id: "pause", type: "wait", duration: "P1D" }] })
  // A run waiting on its timer, started by the booking (its frozen event lists both guests' contact ids).
  const bookedJourneyId = await createJourney(sql, tenant, { name: "Booked", trigger: { type: "event", event: "booking.created" }, steps: [{ id: "pause", type: "wait", duration: "P1D" }] })
  await api("PUT", "/api/v1/loyalty/program", { currency: "EUR", points_per_unit: 10, points_per_night: 100, expiry_months: 24, point_value: 0.01 })
  await api("POST", "/api/v1/fields", { fields: [{ field_key: "room_pref", field_label: "Room", field_type: "string" }] })

  // 1. A reservation with the subject (holder) and the companion, free text naming the subject.
  const booked = await api("POST", "/api/v1/reservations", {
    reservation_id: uniqueId("PRIV"), hotel_code: tenant.hotel_code, check_in: "2026-12-01", check_out: "2026-12-04", status: "confirmed", source: "pms",
    comments: `${s.first_name} asks for a quiet room`, metadata: { pms_guest: `${s.last_name}` },
    extras: [{ name: "Spa", amount: 40, notes: `for ${s.first_name}` }],
    guests: [
      { first_name: s.first_name, last_name: s.last_name, email: s.email.toUpperCase(), phone: spaced(s.phone), is_holder: true, email_consent: true,
        date_of_birth: "1985-04-02", document_type: "passport", document_number: `P${letters()}`, address: { line1: `${s.last_name} street 1`, city: "Palma" } },
      { first_name: c.first_name, last_name: c.last_name, email: c.email, phone: c.phone }
    ]
  })
  const subjectContactId = booked.contacts[0].contact_id as string
  const companionContactId = booked.contacts[1].contact_id as string
  // 2. A guest upsert with a custom field and tags, sent with an Idempotency-Key (its answer is kept a day).
  await api("POST", "/api/v1/guests", {
    phone: s.phone, email: s.email, first_name: s.first_name, last_name: s.last_name, tags: ["vip"], custom_fields: { room_pref: `${s.last_name} likes high floors` }
  }, { "idempotency-key": randomUUID() })
  // An identity conflict: the subject's phone with the companion's email.
  await api("POST", "/api/v1/guests", { phone: s.phone, email: c.email, first_name: s.first_name, last_name: s.last_name })
  // 3. A core event (its journey sends an email) and 4. an email through the API.
  await api("POST", "/api/v1/events", { event_type: trigger, contact_id: subjectContactId, payload: { note: `for ${s.first_name} ${s.last_name}` } })
  await api("POST", "/api/v1/messages", { contact_id: subjectContactId, channel: "email", category: "utility", subject: `Your stay, ${s.first_name}`, text: "See you soon" })
  // 5. A website event with consent evidence.
  const source = await createSource(platform.baseUrl, tenant.live_key)
  const web = await serverPost(platform.baseUrl, source.server_key, {
    event: "cart.abandoned", contact: { email: s.email, first_name: s.first_name, last_name: s.last_name },
    context: { cart_id: uniqueId("cart"), stage: "payment", hotel_code: tenant.hotel_code },
    consent: { email_marketing: true, text: "Send me offers by email, please", captured_at: new Date().toISOString(), form_id: "footer" }
  }, { "user-agent": "Mozilla/5.0 (privacy test)" })
  expect(web.status, JSON.stringify(web.body)).toBe(202)
  // 6. A CDP visitor browsing, then identified.
  await api("PATCH", "/api/v1/cdp/settings", { visitor_tracking: true, allowed_domains: [] })
  const visitor_id = uniqueId("v")
  const session_id = uniqueId("s")
  await api("POST", "/api/v1/cdp/events", { visitor_id, session_id, events: [{ type: "page_view", url: "/rooms", title: "Rooms", ts: new Date().toISOString() }] })
  await api("POST", "/api/v1/cdp/identify", { visitor_id, session_id, email: s.email.toUpperCase() })
  // 7. A WhatsApp message from the subject.
  const raw = JSON.stringify(webhookEnvelope({ wabaId: "102290129340398", displayPhoneNumber: "34910000000", phoneNumberId: h.whatsapp.phoneNumberId },
    inboundValue({ from: s.phone, text: `Hi, ${s.first_name} here`, name: `${s.first_name} ${s.last_name}` }, `wamid.${uniqueId("in")}`)))
  const hook = await request(platform.baseUrl, "POST", "/api/webhooks/whatsapp", { raw, headers: { "x-hub-signature-256": signWhatsAppBody(h.whatsapp.appSecret, raw) } })
  expect(hook.status, JSON.stringify(hook.body)).toBe(200)
  // 8. A call from the subject, with a transcript naming them.
  const call = await request(platform.baseUrl, "POST", "/api/webhooks/cti", { key: h.ctiToken, body: {
    event: "call_completed", call_id: uniqueId("call"), direction: "inbound", from: spaced(s.phone), to: "+34910000000",
    started_at: new Date(Date.now() - 120_000).toISOString(), ended_at: new Date(Date.now() - 60_000).toISOString(),
    caller: { first_name: s.first_name, last_name: s.last_name, email: s.email }, summary: `${s.first_name} asked about parking`,
    transcript_text: `Guest: Hello, this is ${s.first_name} ${s.last_name}\nAgent: Welcome back`
  } })
  expect(call.status, JSON.stringify(call.body)).toBeLessThan(300)
  // 9. A loyalty member with earns and a credit hold.
  const member = await api("POST", "/api/v1/loyalty/enroll", { email: s.email, first_name: s.first_name, last_name: s.last_name, phone: s.phone, loyalty_balance: 300 })
  const memberId = member.member_id as string
  await api("POST", "/api/v1/loyalty/points", { member_id: memberId, points: 50, external_reference_id: uniqueId("earn") })
  await api("POST", "/api/v1/loyalty/credit/hold", { member_id: memberId, points: 40, reservation_id: uniqueId("RES"), external_reference_id: uniqueId("hold") })
  // 10. An SSO sign-in: the emailed code, the token, a call with it.
  await ssoSignIn(h, s.email)
  // 11. A newsletter subscription, confirmed from the emailed link.
  const { publishable_key } = await configureNewsletter(platform.baseUrl, tenant.live_key, { enabled: true, allowed_origins: [NEWSLETTER_ORIGIN], fields: { first_name: true } })
  const signed = await signUp(platform.baseUrl, publishable_key, { email: s.email, first_name: s.first_name, consent_text: "I want offers" })
  expect(signed.status, JSON.stringify(signed.body)).toBe(202)
  const confirmation = await eventually("the newsletter confirmation", async () => h.sink.mails.find((m) => m.to.includes(s.email) && /confirm/i.test(m.subject)), 15_000)
  expect((await submitConfirm(linkIn(confirmation.text), "Mozilla/5.0 (privacy confirm)")).status).toBe(200)

  // Copies the platform keeps encoded: an envelope that was dead-lettered, an outbox batch not yet published (under a
  // namespace no relay serves), each naming both people.
  const envelope = (p: Person) => encode({ v: 2, id: randomUUID(), actor: "guest", type: "upsert", tenant_id: tenant.tenant_id, sandbox: false,
    key: p.phone, payload: { phone: p.phone, email: p.email, first_name: p.first_name, last_name: p.last_name }, sent_at: Date.now() })
  for (const p of [s, c]) {
    await sql`INSERT INTO dead_letters (envelope_id, tenant_id, actor, subject, payload, error, attempts)
      VALUES (${randomUUID()}, ${tenant.tenant_id}, 'guest', 'x.in.guest.0', ${Buffer.from(envelope(p))}, 'failed', 5)`
  }
  const message = (p: Person) => ({ id: randomUUID(), subject: "nowhere.evt.contact.updated", data: envelope(p) })
  await sql`INSERT INTO outbox (id, tenant_id, subject, payload, batch)
    VALUES (${randomUUID()}, ${tenant.tenant_id}, 'nowhere.batch', ${Buffer.from(encode([message(s), message(c)]))}, true)`

  // A staff member opened the subject's contact (the audit log: anonymised by an erasure, listed by an export).
  await sql`INSERT INTO audit_log (id, tenant_id, sandbox, at, actor_type, actor_id, action, contact_id)
    VALUES (${randomUUID()}, ${tenant.tenant_id}, false, now(), 'staff', ${randomUUID()}, 'contact.viewed', ${subjectContactId})`

  await runIn(sql, journeyId, subjectContactId, ["completed"], 60_000)
  await runIn(sql, bookedJourneyId, subjectContactId, ["waiting"], 60_000)
  await eventually("the emails sent", async () => h.sink.mails.filter((m) => m.to.includes(s.email)).length >= 3 ? true : undefined, 30_000)
  await settled(sql)
  return { subjectContactId, companionContactId, reservationId: booked.reservation_id as string, memberId }
}

/** The whole SSO sign-in of the member: authorisation, the emailed code, the token exchange, a call with the token. */
const ssoSignIn = async (h: PrivacyHarness, email: string) => {
  const base = h.platform.baseUrl
  const rp = await newClient(base, h.tenant.live_key, "http://127.0.0.1/cb", "http://127.0.0.1/bye")
  const p = await pkce()
  const b = browser()
  const { page } = await startInteraction(b, base, rp.client_id, p.challenge)
  const before = h.sink.mails.filter((m) => m.to.includes(email)).length
  expect((await b.post(`${page}/login`, { email })).status).toBe(200)
  const code = await codeFor(h.sink, email, before)
  let next = absolute(base, (await b.post(`${page}/otp`, { code })).headers.get("location"))
  while (next.startsWith(base)) next = absolute(base, (await b.get(next)).headers.get("location"))
  const token = await fetch(`${base}/api/oidc/token`, {
    method: "POST", headers: { authorization: basic(rp), "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ grant_type: "authorization_code", code: new URL(next).searchParams.get("code")!, redirect_uri: "http://127.0.0.1/cb", code_verifier: p.verifier })
  })
  expect(token.status, await token.clone().text()).toBe(200)
  const { access_token } = await token.json() as { access_token: string }
  expect((await fetch(`${base}/api/loyalty/me/balance`, { headers: { authorization: `Bearer ${access_token}` } })).status).toBe(200)
}

/** Until the platform has nothing left in flight: its outbox drained and the rows it writes unchanged for a while. */
export const settled = async (sql: postgres.Sql) => {
  let last = ""
  let stable = 0
  await eventually("the platform settled", async () => {
    const [row] = await sql`
      SELECT (SELECT count(*) FROM outbox WHERE subject <> 'nowhere.batch') AS outbox, (SELECT count(*) FROM webhook_deliveries) AS deliveries,
        (SELECT count(*) FROM message_statuses) AS statuses, (SELECT count(*) FROM inbox) AS inbox, (SELECT count(*) FROM events) AS events`
    const now = JSON.stringify(row)
    stable = now === last && Number(row!.outbox) === 0 ? stable + 1 : 0
    last = now
    if (stable >= 3) return true
    await new Promise((r) => setTimeout(r, 400))
    return undefined
  }, 60_000)
}

