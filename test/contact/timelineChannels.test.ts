import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { phone, uniqueId } from "../support/fixtures.ts"
import { createJourney } from "../support/journeys.ts"
import { configureChannels, newWhatsAppNumber, useEncryptionKey } from "../support/messaging.ts"
import { createTenant, request, startPlatform, testSql, type RunningPlatform, type TestTenant } from "../support/platform.ts"
import { eventually } from "../support/webhook.ts"
import { inboundValue, signWhatsAppBody, webhookEnvelope } from "../support/whatsappWire.ts"
import { createSource, serverPost } from "../website/support.ts"
import { contactReads } from "./support.ts"

// The timeline's channel sources: website events and browser (CDP) events of email-only contacts, a message the
// consent gates skipped, a WhatsApp message the guest sent.

/** The platform's at-rest key (the WhatsApp channel's secrets are stored encrypted with it). */
const encryptionKey = useEncryptionKey()
let platform: RunningPlatform
let tenant: TestTenant
const sql = testSql()

beforeAll(async () => {
  platform = await startPlatform("timeline-channels")
  tenant = await createTenant("timeline-channels")
  await sql`INSERT INTO channel_email (tenant_id, sandbox, from_address) VALUES (${tenant.tenant_id}, false, 'stay@hotelexample.com')`
})
afterAll(async () => {
  await platform?.stop()
  await sql.end()
})

const { api, timeline } = contactReads(() => platform, () => tenant)

describe("GET /api/v1/contacts/{contact_id}/timeline: channel sources", () => {
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
    expect(webItems[0]!.summary).toBe("Website event cart.abandoned")
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
})
