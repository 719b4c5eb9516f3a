import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { phone, reservation, uniqueId } from "../support/fixtures.ts"
import { createJourney, runIn } from "../support/journeys.ts"
import { configureChannels, newWhatsAppNumber, useEncryptionKey } from "../support/messaging.ts"
import { createCtiIntegration, createTenant, post, request, startPlatform, testSql, type RunningPlatform, type TestTenant } from "../support/platform.ts"
import { eventually } from "../support/webhook.ts"
import { inboundValue, signWhatsAppBody, webhookEnvelope } from "../support/whatsappWire.ts"
import { createSource, serverPost } from "../website/support.ts"

/** The platform's at-rest key (the WhatsApp channel's secrets are stored encrypted with it). */
const encryptionKey = useEncryptionKey()
let platform: RunningPlatform
let tenant: TestTenant
let ctiToken: string
const sql = testSql()

beforeAll(async () => {
  platform = await startPlatform("timeline")
  tenant = await createTenant("timeline")
  ctiToken = (await createCtiIntegration(tenant.tenant_id, "aircall")).token
  // No SMTP server: sends stay queued, which is all the timeline needs to show.
  await sql`INSERT INTO channel_email (tenant_id, sandbox, from_address) VALUES (${tenant.tenant_id}, false, 'stay@hotelexample.com')`
})
afterAll(async () => {
  await platform?.stop()
  await sql.end()
})

const api = async (method: string, path: string, body?: unknown) => {
  const res = await request(platform.baseUrl, method, path, { key: tenant.live_key, ...(body === undefined ? {} : { body }) })
  expect(res.status, `${method} ${path}: ${JSON.stringify(res.body)}`).toBeLessThan(300)
  return res.body.data
}
interface Item { at: string; kind: string; id: string; summary: string; data: Record<string, any> }
const timeline = async (contactId: string, query = ""): Promise<{ items: Array<Item>; next_cursor: string | null }> =>
  api("GET", `/api/v1/contacts/${contactId}/timeline${query}`)

/** Every item, walking the pages of `limit` items. */
const walk = async (contactId: string, limit: number) => {
  const all: Array<Item> = []
  let cursor: string | null = null
  for (let pages = 0; pages < 100; pages++) {
    const page = await timeline(contactId, `?limit=${limit}${cursor === null ? "" : `&cursor=${cursor}`}`)
    expect(page.items.length).toBeLessThanOrEqual(limit)
    all.push(...page.items)
    cursor = page.next_cursor
    if (cursor === null) break
  }
  return all
}

describe("GET /api/v1/contacts/{contact_id}/timeline", () => {
  it("holds reservations, events, messages, a journey run, loyalty movements, calls and consent, newest first, paged", async () => {
    const p = phone(Math.floor(Math.random() * 80_000_000))
    const email = `${uniqueId("tl").toLowerCase()}@gmail.com`
    const booked = reservation({ hotel_code: tenant.hotel_code }, {
      guests: [{ first_name: "Lía", last_name: "Timeline", phone: p, email, is_holder: true, email_consent: true }]
    })
    const first = await api("POST", "/api/v1/reservations", booked)
    const contactId = first.contacts[0].contact_id as string
    await api("POST", "/api/v1/reservations", { ...booked, status: "checked_in" })

    const trigger = `timeline.${uniqueId("t").replace(/[^a-z0-9]/gi, "_").toLowerCase()}`
    const journeyId = await createJourney(sql, tenant, {
      name: "Timeline welcome", trigger: { type: "event", event: trigger },
      steps: [{ id: "hello", type: "email", category: "utility", subject: "Hello", text: "Hello" }, { id: "done", type: "end" }]
    })
    await api("POST", "/api/v1/events", { event_type: trigger, contact_id: contactId, payload: { note: "x" } })
    await api("POST", "/api/v1/messages", { contact_id: contactId, channel: "email", category: "utility", subject: "Your stay", text: "See you" })
    const member = await api("POST", "/api/v1/loyalty/enroll", { email, loyalty_balance: 100 })
    await api("POST", "/api/v1/loyalty/points", { member_id: member.member_id, points: 50, external_reference_id: uniqueId("earn") })
    const call = await post(platform.baseUrl, "/api/webhooks/cti", ctiToken, {
      event: "call_completed", call_id: uniqueId("call"), direction: "inbound", from: p, to: "+34910000000",
      started_at: new Date().toISOString(), ended_at: new Date(Date.now() + 60_000).toISOString()
    })
    expect(call.status, JSON.stringify(call.body)).toBeLessThan(300)
    await runIn(sql, journeyId, contactId, ["completed"])

    const all = await eventually("every source in the timeline", async () => {
      const items = (await timeline(contactId, "?limit=100")).items
      const kinds = new Set(items.map((i) => i.kind))
      return ["reservation", "event", "message", "journey_entered", "journey_step", "journey_ended", "loyalty_movement", "call", "consent_change"]
          .every((k) => kinds.has(k)) && items.filter((i) => i.kind === "message").length === 2
        ? items
        : undefined
    }, 30_000)

    // Newest first (the journey's email is handed to messaging after its step: both messages are waited for above).
    const times = all.map((i) => Date.parse(i.at))
    expect(times).toEqual([...times].sort((a, b) => b - a))
    expect(all.filter((i) => i.kind === "reservation").map((i) => i.data.event_type).sort()).toEqual(["booking.created", "booking.updated"])
    expect(all.find((i) => i.kind === "reservation" && i.data.event_type === "booking.updated")!.data).toMatchObject({
      external_reservation_id: booked.reservation_id, status: "checked_in", hotel_id: tenant.hotel_id
    })
    expect(all.find((i) => i.kind === "event")!.data).toMatchObject({ type: trigger })
    const sent = all.filter((i) => i.kind === "message")
    expect(sent.map((m) => m.data.subject).sort()).toEqual(["Hello", "Your stay"])
    expect(sent[0]!.data).toMatchObject({ channel: "email", category: "utility", statuses: expect.any(Array) })
    expect(all.find((i) => i.kind === "journey_ended")!.data).toMatchObject({ journey_id: journeyId, journey_name: "Timeline welcome", state: "completed" })
    expect(all.filter((i) => i.kind === "journey_step").map((i) => i.data.step_id).sort()).toEqual(["done", "hello"])
    expect(all.filter((i) => i.kind === "loyalty_movement").map((i) => i.data.points).sort()).toEqual([100, 50])
    expect(all.find((i) => i.kind === "call")!.data).toMatchObject({ provider: "aircall", direction: "inbound" })
    expect(all.find((i) => i.kind === "consent_change")!.data).toMatchObject({ channel: "email", granted: true })
    // Summaries carry no personal data of the record.
    for (const i of all) {
      expect(i.summary, i.kind).not.toContain(email)
      expect(i.summary, i.kind).not.toContain(p.replace(/\s/g, ""))
      expect(i.summary, i.kind).not.toContain("Lía")
    }

    // Pages of 2: the same items in the same order, none skipped, none repeated.
    const paged = await walk(contactId, 2)
    expect(paged.map((i) => `${i.kind}/${i.id}`)).toEqual(all.map((i) => `${i.kind}/${i.id}`))
  }, 120_000)

  it("holds the website events and browser (CDP) events of email-only contacts, which ?email= finds", async () => {
    // Website events are stored when a journey listens to them.
    await createJourney(sql, tenant, { name: "Cart", trigger: { type: "event", event: "cart.abandoned" }, steps: [{ id: "pause", type: "wait", duration: "P1D" }] })
    const source = await createSource(platform.baseUrl, tenant.live_key)
    const shopper = `${uniqueId("web").toLowerCase()}@gmail.com`
    const web = await serverPost(platform.baseUrl, source.server_key, {
      event: "cart.abandoned", contact: { email: shopper }, context: { cart_id: uniqueId("cart"), stage: "payment", hotel_code: tenant.hotel_code },
      consent: { email_marketing: true, text: "Send me offers by email, please", captured_at: new Date().toISOString() }
    })
    expect(web.status, JSON.stringify(web.body)).toBe(202)
    const [webContact] = (await api("GET", `/api/v1/contacts?email=${encodeURIComponent(shopper)}`)).contacts
    expect(webContact).toMatchObject({ email: shopper, phone: null })
    const webItems = await eventually("the website event", async () => {
      const items = (await timeline(webContact.contact_id)).items.filter((i) => i.kind === "website_event")
      return items.length > 0 ? items : undefined
    })
    expect(webItems[0]!.data).toMatchObject({ event: "cart.abandoned", source_id: source.source_id, hotel_id: tenant.hotel_id })
    // The consent claim's evidence, as the website event carried it, in the profile.
    const profile = await api("GET", `/api/v1/contacts/${webContact.contact_id}`)
    expect(profile.consent.email.granted).toBe(true)
    expect(profile.consent.history).toEqual([expect.objectContaining({
      channel: "email", granted: true, source: `website:${source.source_id}`, text: "Send me offers by email, please"
    })])

    await api("PATCH", "/api/v1/cdp/settings", { visitor_tracking: true, allowed_domains: [] })
    const visitor_id = uniqueId("v")
    const session_id = uniqueId("s")
    await api("POST", "/api/v1/cdp/events", { visitor_id, session_id, events: [{ type: "page_view", url: "/rooms", title: "Rooms", ts: new Date().toISOString() }] })
    const visitor = `${uniqueId("cdp").toLowerCase()}@gmail.com`
    const identified = await api("POST", "/api/v1/cdp/identify", { visitor_id, session_id, email: visitor.toUpperCase() })
    const [cdpContact] = (await api("GET", `/api/v1/contacts?email=${encodeURIComponent(visitor)}`)).contacts
    expect(cdpContact).toMatchObject({ contact_id: identified.contact_id, email: visitor, phone: null })
    const browsing = (await timeline(identified.contact_id)).items.filter((i) => i.kind === "cdp_event")
    expect(browsing.map((i) => i.data)).toEqual([expect.objectContaining({ type: "page_view", url: "/rooms", title: "Rooms", visitor_id, session_id })])
    expect(browsing[0]!.summary).toBe("Browser page_view on /rooms")
  })

  it("shows a reservation to its companions too (its booking events name the holder)", async () => {
    const booked = reservation({ hotel_code: tenant.hotel_code }, {
      guests: [
        { first_name: "Hol", last_name: "Der", phone: phone(Math.floor(Math.random() * 80_000_000)), is_holder: true },
        { first_name: "Com", last_name: "Panion", email: `${uniqueId("comp").toLowerCase()}@gmail.com` }
      ]
    })
    const answer = await api("POST", "/api/v1/reservations", booked)
    await api("POST", "/api/v1/reservations", { ...booked, status: "cancelled" })
    const ids = answer.contacts.map((c: { contact_id: string }) => c.contact_id) as Array<string>
    expect(ids).toHaveLength(2)
    for (const id of ids) {
      const items = (await timeline(id)).items.filter((i) => i.kind === "reservation")
      expect(items.map((i) => i.data.event_type), id).toEqual(["booking.cancelled", "booking.created"])
      expect(items[0]!.data).toMatchObject({ external_reservation_id: booked.reservation_id, status: "cancelled" })
    }
  })

  it("shows a message the consent gates skipped, with its reason", async () => {
    const guest = await api("POST", "/api/v1/guests", {
      phone: phone(Math.floor(Math.random() * 80_000_000)), first_name: "No", last_name: "Consent", email: `${uniqueId("nc").toLowerCase()}@gmail.com`
    })
    const res = await request(platform.baseUrl, "POST", "/api/v1/messages", {
      key: tenant.live_key, body: { contact_id: guest.contact_id, channel: "email", category: "marketing", subject: "Offer", text: "20% off" }
    })
    expect(res.status, JSON.stringify(res.body)).toBeLessThan(300)
    const [skipped] = (await timeline(guest.contact_id)).items.filter((i) => i.kind === "message")
    expect(skipped!.data).toMatchObject({ status: "skipped", category: "marketing", skip_reason: expect.any(String) })
    expect(skipped!.summary).toBe(`Email marketing message skipped: ${skipped!.data.skip_reason}`)
  })

  it("holds a WhatsApp message the guest sent", async () => {
    const number = newWhatsAppNumber()
    await configureChannels(sql, encryptionKey, tenant, { whatsapp: number })
    const p = phone(Math.floor(Math.random() * 80_000_000))
    const guest = await api("POST", "/api/v1/guests", { phone: p, first_name: "Wa", last_name: "Guest" })
    const raw = JSON.stringify(webhookEnvelope({ wabaId: "102290129340398", displayPhoneNumber: "34910000000", phoneNumberId: number.phoneNumberId },
      inboundValue({ from: p, text: "Can I check in early?", name: "Wa" }, `wamid.${uniqueId("in")}`)))
    const hook = await request(platform.baseUrl, "POST", "/api/webhooks/whatsapp", { raw, headers: { "x-hub-signature-256": signWhatsAppBody(number.appSecret, raw) } })
    expect(hook.status, JSON.stringify(hook.body)).toBe(200)
    const inbound = await eventually("the inbound message", async () =>
      (await timeline(guest.contact_id)).items.find((i) => i.kind === "inbound_message"))
    expect(inbound.data).toMatchObject({ channel: "whatsapp", text: "Can I check in early?", conversation_id: expect.any(String) })
    expect(inbound.summary).toBe("WhatsApp message received")
  })

  it("is empty for a contact with no history, and refuses a bad limit or cursor naming it", async () => {
    const guest = await api("POST", "/api/v1/guests", { phone: phone(Math.floor(Math.random() * 80_000_000)), first_name: "Quiet", last_name: "One" })
    expect(await timeline(guest.contact_id)).toEqual({ items: [], next_cursor: null })
    for (const [query, parameter] of [["?limit=0", "limit"], ["?limit=x", "limit"], ["?cursor=abc", "cursor"]] as const) {
      const res = await request(platform.baseUrl, "GET", `/api/v1/contacts/${guest.contact_id}/timeline${query}`, { key: tenant.live_key })
      expect(res.status).toBe(400)
      expect(res.body.error.details).toHaveProperty(parameter)
    }
    const bad = await request(platform.baseUrl, "GET", "/api/v1/contacts/12/timeline", { key: tenant.live_key })
    expect(bad.status).toBe(400)
    expect(bad.body.error.details).toHaveProperty("contact_id")
  })
})
