import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { claim } from "../../actors/message/delivery.ts"
import { makeSendBudget } from "../../actors/message/sendBudget.ts"
import { withTenant } from "../../core/db/Database.ts"
import type { Identifier } from "../../core/privacy/identifier.ts"
import type { SegmentDefinition } from "../../schemas/segment.ts"
import { broadcastSend, insertBroadcast, insertRecipient, messageActor } from "../support/broadcasts.ts"
import { e164, phone, uniqueId } from "../support/fixtures.ts"
import {
  configureChannels, type MailingPlatform, newContact, newWhatsAppNumber, send, startMailingPlatform, useEncryptionKey, type WhatsAppNumber
} from "../support/messaging.ts"
import { type IngressProcess, spawnIngress } from "../support/processes.ts"
import { createCtiIntegration, post, request, testSql, type TestTenant } from "../support/platform.ts"
import { digitsOf, inboundValue, newWamid, signWhatsAppBody, webhookEnvelope } from "../support/whatsappWire.ts"
import { lift, sleep, suppress, usePrivacyKey, watchPublished } from "./support.ts"

// Issue 26, "suppression first": with a suppression row for a phone and an email (keyed hashes, as the privacy
// request's POST writes them), every ingress family answers without a 5xx, makes no contact and publishes nothing
// carrying either value; a reservation keeps its other guest; the message sender sends nothing. Lifted, the same
// requests create the contact again. Two more ingress processes show every replica refusing within 5 s.

const channelKey = useEncryptionKey()
const privacy = usePrivacyKey()
const sql = testSql()
/** The ingress's cache time to live (default GEP_SUPPRESSION_CACHE_MS), with a margin. */
const CACHE_MS = 2_000 + 300

let mailing: MailingPlatform
let base: string
let tenant: TestTenant
let scope: { tenant_id: string; sandbox: false }
let watch: Awaited<ReturnType<typeof watchPublished>>
let webServerKey: string
let publishable: string
let ctiToken: string
let accountId: string
let wa: WhatsAppNumber

const n = 10_000_000 + Math.floor(Math.random() * 60_000_000)
/** The suppressed person (a phone and an email), a companion on their reservation, and a contact messaged before. */
const person = { phone: e164(n), spaced: phone(n), email: `sup-${uniqueId().toLowerCase()}@gmail.com` }
const companion = e164(n + 1)
const phoneOf: Identifier = { kind: "phone", value: person.phone }
const emailOf: Identifier = { kind: "email", value: person.email }
const values = [person.phone, digitsOf(person.phone), person.email]

beforeAll(async () => {
  mailing = await startMailingPlatform(sql, channelKey, "privacy")
  base = mailing.platform.baseUrl
  tenant = mailing.tenant
  scope = { tenant_id: tenant.tenant_id, sandbox: false }
  wa = newWhatsAppNumber()
  await configureChannels(sql, channelKey, tenant, { whatsapp: wa })
  webServerKey = (await request(base, "POST", "/api/v1/website-sources", {
    key: tenant.live_key, body: { name: "Site", allowed_origins: ["https://shop.hotel-guests.net"] }
  })).body.server_key
  publishable = (await request(base, "PATCH", "/api/v1/newsletter/config", {
    key: tenant.live_key, body: { enabled: true, allowed_origins: ["https://www.hotel-newsletter.example"] }
  })).body.data.publishable_key
  ctiToken = (await createCtiIntegration(tenant.tenant_id, "aircall")).token
  accountId = (await request(base, "POST", "/b2b/accounts", { key: tenant.live_key, body: { type: "agency", name: `Agency ${n}` } })).body.data.account_id
  watch = await watchPublished(mailing.platform.config.natsUrl, mailing.platform.config.namespace)
}, 60_000)
afterAll(async () => {
  await watch?.close()
  await mailing?.stop()
  await sql.end()
})

const api = (method: string, path: string, body: unknown) => request(base, method, path, { key: tenant.live_key, body })

/** One request per family naming the person (each answer checked by the caller). */
const asks = {
  reservation: () => api("POST", "/api/v1/reservations", {
    reservation_id: uniqueId(), hotel_code: tenant.hotel_code, check_in: "2026-12-01", check_out: "2026-12-04",
    guests: [
      { first_name: "Sam", last_name: "Hidden", phone: person.spaced, email: person.email, is_holder: true },
      { first_name: "Cleo", last_name: "Companion", phone: companion }
    ]
  }),
  reservationAlone: () => api("POST", "/api/v1/reservations", {
    reservation_id: uniqueId(), hotel_code: tenant.hotel_code, check_in: "2026-12-01", check_out: "2026-12-04", amount: 420,
    guests: [{ first_name: "Sam", email: person.email.toUpperCase() }]
  }),
  guest: () => api("POST", "/api/v1/guests", { phone: person.spaced, email: person.email, first_name: "Sam", last_name: "Hidden" }),
  event: () => api("POST", "/api/v1/events", { event_type: "review.requested", payload: { score: 9 }, guest_phone: person.spaced }),
  website: () => request(base, "POST", "/api/v1/website-events", {
    key: webServerKey, body: { event: "cart.abandoned", contact: { email: person.email, first_name: "Sam" }, context: { cart_id: uniqueId() } }
  }),
  identify: () => api("POST", "/api/v1/cdp/identify", { visitor_id: uniqueId(), phone: person.phone }),
  call: () => post(base, "/api/webhooks/cti", ctiToken, {
    event: "call_completed", call_id: uniqueId(), direction: "inbound", from: person.spaced, to: "+34910000000",
    started_at: "2026-11-20T10:00:00Z", answered_at: "2026-11-20T10:00:05Z", ended_at: "2026-11-20T10:04:05Z",
    caller: { name: "Sam Hidden" }, transcript_text: "Agent: Hello. Caller: I would like a room."
  }),
  newsletter: () => request(base, "POST", "/api/v1/newsletter/subscribe", {
    key: publishable, body: { consent: true, email: person.email }, headers: { origin: "https://www.hotel-newsletter.example" }
  }),
  enrol: () => api("POST", "/api/v1/loyalty/enroll", { email: person.email, first_name: "Sam" }),
  b2bContact: () => api("POST", `/b2b/accounts/${accountId}/contacts`, { first_name: "Sam", phone: person.spaced }),
  whatsapp: async () => {
    const raw = JSON.stringify(webhookEnvelope(
      { wabaId: "waba-1", displayPhoneNumber: "+34910000000", phoneNumberId: wa.phoneNumberId },
      inboundValue({ from: person.phone, text: "Hola, soy Sam", name: "Sam" }, newWamid())
    ))
    const res = await fetch(`${base}/api/webhooks/whatsapp`, {
      method: "POST", headers: { "content-type": "application/json", "x-hub-signature-256": signWhatsAppBody(wa.appSecret, raw) }, body: raw
    })
    return { status: res.status, body: await res.text() }
  }
}

const contactsOfPerson = async () => (await sql`SELECT id FROM contacts WHERE tenant_id = ${tenant.tenant_id}
  AND (phone = ${person.phone} OR email = ${person.email})`).map((r) => r.id as string)

const expectSuppressedWarning = (warnings: ReadonlyArray<{ code: string; field?: string; message: string }>, field?: string) => {
  const w = warnings.find((x) => x.code === "subject_suppressed")
  expect(w, JSON.stringify(warnings)).toBeDefined()
  if (field !== undefined) expect(w!.field).toBe(field)
  for (const v of values) expect(w!.message).not.toContain(v)
}

describe("a suppressed person at every ingress", () => {
  it("is left out by every family: no 5xx, no contact, nothing published; a reservation keeps its facts and its companion", async () => {
    await suppress(sql, privacy, scope, phoneOf)
    await suppress(sql, privacy, scope, emailOf)
    // The platform's cache may hold the tenant's (empty) suppressions from the set-up requests.
    await sleep(CACHE_MS)
    const from = watch.count()

    const reservation = await asks.reservation()
    expect(reservation.status, JSON.stringify(reservation.body)).toBe(201)
    expectSuppressedWarning(reservation.body.data.warnings, "guests[0]")
    expect(reservation.body.data.contacts.map((c: any) => c.phone)).toEqual([companion])
    const companionRow = await sql`SELECT 1 FROM contacts WHERE tenant_id = ${tenant.tenant_id} AND phone = ${companion}`
    expect(companionRow).toHaveLength(1)
    const guestRows = await sql`SELECT first_name FROM reservation_guests WHERE reservation_id = ${reservation.body.data.reservation_id}`
    expect(guestRows.map((g) => g.first_name)).toEqual(["Cleo"])

    const alone = await asks.reservationAlone()
    expect(alone.status, JSON.stringify(alone.body)).toBe(201)
    expectSuppressedWarning(alone.body.data.warnings, "guests[0]")
    expect(alone.body.data.contacts).toEqual([])
    const [facts] = await sql`SELECT amount FROM reservations WHERE id = ${alone.body.data.reservation_id}`
    expect(Number(facts!.amount)).toBe(420)

    const guest = await asks.guest()
    expect(guest.status, JSON.stringify(guest.body)).toBe(200)
    expect(guest.body.data.contact_id).toBeNull()
    expectSuppressedWarning(guest.body.data.warnings)

    const event = await asks.event()
    expect(event.status, JSON.stringify(event.body)).toBe(200)
    expectSuppressedWarning(event.body.data.warnings, "guest_phone")
    expect(await sql`SELECT 1 FROM events WHERE id = ${event.body.data.event_id}`).toHaveLength(0)

    const website = await asks.website()
    expect(website.status, JSON.stringify(website.body)).toBe(202)
    expect(website.body.results[0]).toMatchObject({ status: "accepted", code: "subject_suppressed", event_id: null, contact: "none" })

    const identify = await asks.identify()
    expect(identify.status, JSON.stringify(identify.body)).toBe(422)
    expect(identify.body.error.code).toBe("SUBJECT_SUPPRESSED")

    const call = await asks.call()
    expect(call.status, JSON.stringify(call.body)).toBe(201)
    expect(call.body.data.contact_id).toBeNull()
    expectSuppressedWarning(call.body.data.warnings, "from")
    const [callRow] = await sql`SELECT from_number, to_number, transcript, caller, contact_id FROM calls WHERE id = ${call.body.data.call_record_id}`
    expect(callRow).toMatchObject({ from_number: null, to_number: "+34910000000", transcript: null, caller: null, contact_id: null })

    const newsletter = await asks.newsletter()
    expect(newsletter.status, JSON.stringify(newsletter.body)).toBe(202)
    expect(await sql`SELECT 1 FROM newsletter_subscriptions WHERE tenant_id = ${tenant.tenant_id} AND email = ${person.email}`).toHaveLength(0)

    const enrol = await asks.enrol()
    expect(enrol.status, JSON.stringify(enrol.body)).toBe(422)
    expect(enrol.body.error.code).toBe("SUBJECT_SUPPRESSED")
    expect(await sql`SELECT 1 FROM loyalty_members WHERE tenant_id = ${tenant.tenant_id} AND email = ${person.email}`).toHaveLength(0)

    const b2b = await asks.b2bContact()
    expect(b2b.status, JSON.stringify(b2b.body)).toBe(200)
    expect(b2b.body.data.contact_id).toBeNull()
    expectSuppressedWarning(b2b.body.data.warnings)

    const inbound = await asks.whatsapp()
    expect(inbound.status, inbound.body).toBe(200)

    expect(await contactsOfPerson()).toEqual([])
    expect(await sql`SELECT 1 FROM messages WHERE tenant_id = ${tenant.tenant_id} AND from_address IN (${person.phone}, ${digitsOf(person.phone)})`).toHaveLength(0)
    // What the companion's reservation set going (its contact's webhook, the booking event) has been published by now.
    await sleep(500)
    expect(watch.carrying(values, from)).toEqual([])
    // The watch does see what was published: the companion's number travelled.
    expect(watch.carrying([companion], from).length).toBeGreaterThan(0)
  }, 60_000)

  it("is sent nothing: a send is skipped subject_suppressed, a message queued before is skipped at its claim", async () => {
    const everyone: SegmentDefinition = { version: 1, match: { field: "contact.has_email", op: "eq", value: true } }
    const contact = await newContact(base, tenant, { email_consent: true })
    // Held by quiet hours around now (so queued, not sent) before the suppression.
    const hour = new Date().getUTCHours()
    const pad = (h: number) => `${String(((h % 24) + 24) % 24).padStart(2, "0")}:00`
    const b = await insertBroadcast(sql, tenant, { definition: everyone, quiet_hours: { from: pad(hour - 1), to: pad(hour + 2) } })
    await insertRecipient(sql, tenant, b, contact.id, "UTC")
    const actor = messageActor(mailing.platform.config)
    const held = await actor.send(tenant, broadcastSend(b, contact.id)).finally(() => actor.close())
    expect(held).toMatchObject({ status: "queued", skip_reason: null })

    await suppress(sql, privacy, scope, { kind: "email", value: contact.email! })
    const res = await send(base, tenant.live_key, { contact_id: contact.id, channel: "email", category: "utility", subject: "Your stay", text: "See you" })
    expect(res.status, JSON.stringify(res.body)).toBe(202)
    expect(res.body.data).toMatchObject({ status: "skipped", skip_reason: "subject_suppressed" })

    // The deliverer's claim once the hold has ended: the recipient was suppressed since, so it is skipped, never sent.
    const [row] = await sql`SELECT not_before FROM messages WHERE id = ${held.message_id}`
    const notBefore = (row!.not_before as Date).getTime()
    const claimed = await withTenant(sql, tenant.tenant_id, (tx) => claim(tx, scope, held.message_id, {
      now: notBefore + 1_000, reconcileMs: 120_000, attemptDeadlineMs: 15_000, defaultRatePerMinute: 600,
      key: channelKey, budget: makeSendBudget(), hash: (identifier) => privacy.hash(tenant.tenant_id, identifier)
    }))
    expect(claimed).toEqual({ kind: "done" })
    const rows = await sql`SELECT id, status, skip_reason FROM messages WHERE contact_id = ${contact.id} ORDER BY created_at`
    expect(rows.map((r) => [r.status, r.skip_reason])).toEqual([["skipped", "subject_suppressed"], ["skipped", "subject_suppressed"]])
    await sleep(500)
    expect(mailing.sink.mails.filter((m) => m.to.includes(contact.email!))).toEqual([])
  }, 30_000)

  it("lifted (the rows deleted, the cache's time to live waited out), the same requests create the contact", async () => {
    await lift(sql, privacy, scope, phoneOf)
    await lift(sql, privacy, scope, emailOf)
    await sleep(CACHE_MS)
    const reservation = await asks.reservation()
    expect(reservation.status, JSON.stringify(reservation.body)).toBe(201)
    expect(reservation.body.data.warnings.filter((w: any) => w.code === "subject_suppressed")).toEqual([])
    expect(reservation.body.data.contacts.map((c: any) => c.phone)).toEqual([person.phone, companion])
    const [contactId] = await contactsOfPerson()
    if (contactId === undefined) throw new Error("no contact for the person once lifted")
    expect((await asks.guest()).body.data.contact_id).toBe(contactId)
    expect((await asks.event()).body.data.contact_id).toBe(contactId)
    expect((await asks.website()).body.results[0]).toMatchObject({ status: "accepted", contact: "matched" })
    expect((await asks.identify()).body.data.contact_id).toBe(contactId)
    expect((await asks.call()).body.data.contact_id).toBe(contactId)
    expect((await asks.newsletter()).status).toBe(202)
    expect(await sql`SELECT 1 FROM newsletter_subscriptions WHERE tenant_id = ${tenant.tenant_id} AND email = ${person.email}`).toHaveLength(1)
    expect((await asks.enrol()).status).toBe(201)
    expect((await asks.b2bContact()).body.data.contact_id).toBe(contactId)
    expect((await asks.whatsapp()).status).toBe(200)
    expect(await sql`SELECT 1 FROM messages WHERE contact_id = ${contactId} AND direction = 'inbound'`).toHaveLength(1)
    expect(await contactsOfPerson()).toEqual([contactId])
  }, 30_000)
})

describe("two more ingress replicas", () => {
  let replicas: Array<IngressProcess> = []
  afterAll(() => Promise.all(replicas.map((r) => r.stop())))

  it("both refuse a person within 5 s of the suppression, their caches warm before it", async () => {
    replicas = await Promise.all([spawnIngress(mailing.platform.config), spawnIngress(mailing.platform.config)])
    const guest = (replica: IngressProcess, p: string) =>
      request(replica.baseUrl, "POST", "/api/v1/guests", { key: tenant.live_key, body: { phone: p, first_name: "Rep", last_name: "Lica" } })
    // Warm: each replica has read this tenant's suppressions (none for the new number yet).
    for (const [i, r] of replicas.entries()) expect((await guest(r, e164(n + 10 + i))).status).toBe(201)
    const late = e164(n + 20)
    await suppress(sql, privacy, scope, { kind: "phone", value: late })
    const suppressedAt = Date.now()
    const refusedAfter = await Promise.all(replicas.map(async (r) => {
      for (;;) {
        const res = await guest(r, late)
        expect(res.status, JSON.stringify(res.body)).toBeLessThan(500)
        if (res.body.data.contact_id === null) return Date.now() - suppressedAt
        if (Date.now() - suppressedAt > 6_000) return Number.POSITIVE_INFINITY
        await sleep(100)
      }
    }))
    for (const ms of refusedAfter) expect(ms).toBeLessThan(5_000)
  }, 60_000)
})
