import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { makeCertificate, startReceiver, trustForThisProcess, type Receiver } from "../support/httpsReceiver.ts"
import { configureChannels, messagesOf, newContact, newWhatsAppNumber, send, TEMPLATES, useEncryptionKey } from "../support/messaging.ts"
import { createTenant, request, startPlatform, testSql, type RunningPlatform, type TestTenant } from "../support/platform.ts"
import { validate } from "../support/jsonSchema.ts"
import { eventually, expectVerifies, subscribe } from "../support/webhook.ts"
import { signWhatsAppBody, startWhatsAppStub, type WhatsAppStub } from "../support/whatsappStub.ts"

// The Cloud API stub answers as Meta does and posts signed status webhooks back to the platform's endpoint.
const key = useEncryptionKey()
const number = newWhatsAppNumber()
let stub: WhatsAppStub
let receiver: Receiver
let platform: RunningPlatform
let tenant: TestTenant
let secret: string
const sql = testSql()
const digits = (phone: string) => phone.replace(/^\+/, "")

beforeAll(async () => {
  stub = await startWhatsAppStub({
    numbers: [{ ...number, templates: TEMPLATES.map((t) => ({ name: t.name, language: t.language, bodyParameters: t.bodyParameters, category: t.category })) }]
  })
  const cert = makeCertificate()
  trustForThisProcess(cert)
  receiver = await startReceiver(cert)
  process.env.GEP_WEBHOOKS_ALLOW_LOOPBACK = "1"
  process.env.GEP_WHATSAPP_API_URL = stub.baseUrl
  process.env.GEP_SEND_BACKOFF_MS = "100"
  process.env.GEP_SEND_TIMEOUT_MS = "1000"
  process.env.GEP_WHATSAPP_RECONCILE_MS = "4000"
  platform = await startPlatform("whatsapp")
  stub.setWebhookUrl(`${platform.baseUrl}/api/webhooks/whatsapp`)
  tenant = await createTenant("wa")
  await configureChannels(sql, key, tenant, { whatsapp: number })
  secret = (await subscribe(platform.baseUrl, tenant.live_key, { url: receiver.url("/events"), event_types: ["*"] })).secret
})
afterAll(async () => {
  await stub?.close()
  await platform?.stop()
  await receiver?.close()
  await sql.end()
})

/** Outbound statuses in the order they move (`failed` stands apart): a message polled as `read` has been `sent`. */
const PROGRESS = ["sent", "delivered", "read"]
const reached = (actual: string, wanted: string) =>
  actual === wanted || (PROGRESS.includes(wanted) && PROGRESS.indexOf(actual) > PROGRESS.indexOf(wanted))
/**
 * The message once it has reached `status` or moved past it: the stub reports statuses right after it answers the send,
 * so on a loaded machine a message may be `read` before a poll ever sees it `sent`.
 */
const stored = async (contactId: string, id: string, status: string, timeoutMs = 10_000) =>
  eventually(`message ${id} ${status}`, async () =>
    (await messagesOf(platform.baseUrl, tenant.live_key, contactId)).find((m) => m.id === id && reached(m.status, status)), timeoutMs)
const events = (type: string) => receiver.on("/events").map((r) => ({ r, body: JSON.parse(r.raw.toString()) })).filter((e) => e.body.event_type === type)
const utility = (contactId: string, parameters = ["Ana", "12 May"]) =>
  ({ contact_id: contactId, channel: "whatsapp", template: { name: "booking_confirmation", language: "es", parameters } })

describe("WhatsApp through the Cloud API", () => {
  it("a template leaves once with our id as callback data; statuses out of order end in read, announced signed", async () => {
    stub.setAutoStatuses(["sent", "delivered", "read"], "reversed")
    const c = await newContact(platform.baseUrl, tenant)
    const res = await send(platform.baseUrl, tenant.live_key, utility(c.id))
    expect(res.status, JSON.stringify(res.body)).toBe(202)
    const id = res.body.data.message_id as string
    await stored(c.id, id, "read")
    await stub.settled()
    const m = await eventually("every status recorded", async () =>
      (await messagesOf(platform.baseUrl, tenant.live_key, c.id)).find((x) => x.id === id && x.statuses.length === 4))
    const call = stub.calls.find((k) => k.body?.biz_opaque_callback_data === id)!
    expect(call.headers.authorization).toBe(`Bearer ${number.accessToken}`)
    expect(call.body).toMatchObject({
      messaging_product: "whatsapp", to: digits(c.phone), type: "template",
      template: { name: "booking_confirmation", language: { code: "es" }, components: [{ type: "body", parameters: [{ type: "text", text: "Ana" }, { type: "text", text: "12 May" }] }] }
    })
    expect(stub.countByCallbackData().get(id)).toBe(1)
    expect(m).toMatchObject({ category: "utility", provider_message_id: call.wamid })
    expect(m.delivered_at).not.toBeNull()
    expect(m.read_at).not.toBeNull()
    // Every status is kept: our own `sent` and the provider's `sent`, `delivered`, `read`, whatever order they came in.
    // `read` is applied; the late `delivered` and the provider's `sent` are history only. Our own `sent` is applied when
    // it is recorded before the provider's `read` arrives, history otherwise (the stub reports at once: both happen).
    const history = (applied: boolean) => m.statuses.filter((s: any) => s.applied === applied).map((s: any) => s.status).sort()
    expect(m.statuses.map((s: any) => s.status).sort()).toEqual(["delivered", "read", "sent", "sent"])
    expect(history(true)).toContain("read")
    expect(history(false)).toEqual(expect.arrayContaining(["delivered", "sent"]))
    expect(m.status).toBe("read")
    const read = await eventually("message.read", async () => events("message.read").find((e) => e.body.data.message.id === id))
    expectVerifies(read.r, secret)
    expect(read.body.data.message).toMatchObject({ status: "read", channel: "whatsapp", template: { name: "booking_confirmation", language: "es" } })
    // `message.sent` announces an applied `sent` only, like every status event: our own, when it was recorded first
    // (the provider's `sent` comes last here, after `read`).
    if (m.statuses.some((s: any) => s.status === "sent" && s.applied)) {
      await eventually("message.sent", async () => events("message.sent").find((e) => e.body.data.message.id === id))
    }
    await eventually("conversation.created", async () => events("conversation.created").find((e) => e.body.data.conversation.id === m.conversation_id))
    expect(events("message.delivered").some((e) => e.body.data.message.id === id)).toBe(false)
    stub.setAutoStatuses([])
    // Every body received so far matches what /openapi.json documents under `webhooks` for its event type.
    const doc = await (await fetch(`${platform.baseUrl}/openapi.json`)).json() as any
    for (const { body } of receiver.on("/events").map((r) => ({ body: JSON.parse(r.raw.toString()) }))) {
      const documented = doc.webhooks?.[body.event_type]?.post.requestBody.content["application/json"].schema
      if (body.event_type.startsWith("contact.")) continue
      expect(documented, `${body.event_type} documented`).toBeDefined()
      expect(validate(documented, body, documented), body.event_type).toEqual([])
    }
  })

  it("refuses an unknown template or a wrong parameter count in the core shape naming the field; nothing is sent", async () => {
    const c = await newContact(platform.baseUrl, tenant)
    const before = stub.calls.length
    const unknown = await send(platform.baseUrl, tenant.live_key, { contact_id: c.id, channel: "whatsapp", template: { name: "nope", language: "es", parameters: [] } })
    expect(unknown.status).toBe(422)
    expect(unknown.body.error.code).toBe("TEMPLATE_UNKNOWN")
    expect(unknown.body.error.details).toHaveProperty(["template.name"])
    const count = await send(platform.baseUrl, tenant.live_key, utility(c.id, ["only one"]))
    expect(count.status).toBe(422)
    expect(count.body.error.details).toHaveProperty(["template.parameters"])
    const outsideWindow = await send(platform.baseUrl, tenant.live_key, { contact_id: c.id, channel: "whatsapp", text: "hello" })
    expect(outsideWindow.status).toBe(422)
    expect(outsideWindow.body.error.code).toBe("SERVICE_WINDOW_CLOSED")
    const marketing = await send(platform.baseUrl, tenant.live_key, { contact_id: c.id, channel: "whatsapp", template: { name: "spring_offer", language: "es", parameters: ["x"] } })
    expect(marketing.body.data).toMatchObject({ status: "skipped", skip_reason: "no_whatsapp_marketing_consent" })
    await new Promise((r) => setTimeout(r, 200))
    expect(stub.calls.length).toBe(before)
    const [row] = await sql`SELECT count(*)::int AS n FROM messages WHERE contact_id = ${c.id} AND status <> 'skipped'`
    expect(row!.n).toBe(0)
  })

  it("a guest's message opens a conversation and the service window; a free-form reply goes out inside it", async () => {
    const c = await newContact(platform.baseUrl, tenant)
    expect(await stub.postInbound({ phoneNumberId: number.phoneNumberId, from: c.phone, text: "¿A qué hora es el check-in?" })).toBe(200)
    const received = await eventually("message.received", async () => events("message.received").find((e) => e.body.data.contact?.id === c.id))
    expect(received.body.data.message).toMatchObject({ direction: "inbound", status: "received", text: "¿A qué hora es el check-in?" })
    const conversationId = received.body.data.message.conversation_id as string
    const conv = await request(platform.baseUrl, "GET", `/api/v1/conversations/${conversationId}`, { key: tenant.live_key })
    expect(conv.body.data).toMatchObject({ status: "open", opened_by: "inbound", channel: "whatsapp" })
    expect(conv.body.data.service_window_open_until).not.toBeNull()
    const reply = await send(platform.baseUrl, tenant.live_key, { contact_id: c.id, channel: "whatsapp", text: "A las 15:00" })
    expect(reply.status, JSON.stringify(reply.body)).toBe(202)
    await stored(c.id, reply.body.data.message_id, "sent").catch(async (e) => {
      throw new Error(`${e}: ${JSON.stringify(await messagesOf(platform.baseUrl, tenant.live_key, c.id))}`)
    })
    const call = stub.calls.find((k) => k.body?.biz_opaque_callback_data === reply.body.data.message_id)!
    expect(call.body).toMatchObject({ type: "text", text: { body: "A las 15:00" } })
    const after = await request(platform.baseUrl, "GET", `/api/v1/conversations/${conversationId}`, { key: tenant.live_key })
    expect(after.body.data.messages.map((m: any) => m.direction)).toEqual(["inbound", "outbound"])
    const closed = await request(platform.baseUrl, "POST", `/api/v1/conversations/${conversationId}/close`, { key: tenant.live_key })
    expect(closed.body.data).toMatchObject({ status: "closed", closed_reason: "api" })
    await eventually("conversation.closed", async () => events("conversation.closed").find((e) => e.body.data.conversation.id === conversationId))
  })

  it("a STOP reply withdraws WhatsApp marketing consent: the next marketing template is skipped", async () => {
    const c = await newContact(platform.baseUrl, tenant, { whatsapp_marketing_consent: true })
    const first = await send(platform.baseUrl, tenant.live_key, { contact_id: c.id, channel: "whatsapp", template: { name: "spring_offer", language: "es", parameters: ["20%"] } })
    expect(first.body.data.status).toBe("queued")
    expect(await stub.postInbound({ phoneNumberId: number.phoneNumberId, from: c.phone, text: "Baja" })).toBe(200)
    await eventually("opt-out", async () => {
      const [r] = await sql`SELECT whatsapp_opted_out_at FROM contacts WHERE id = ${c.id}`
      return r!.whatsapp_opted_out_at ?? undefined
    })
    const next = await send(platform.baseUrl, tenant.live_key, { contact_id: c.id, channel: "whatsapp", template: { name: "spring_offer", language: "es", parameters: ["30%"] } })
    expect(next.body.data).toMatchObject({ status: "skipped", skip_reason: "opted_out" })
    const [audit] = await sql`SELECT granted, source FROM consent_records WHERE contact_id = ${c.id} AND channel = 'whatsapp' ORDER BY id DESC LIMIT 1`
    expect(audit).toMatchObject({ granted: false, source: "whatsapp_reply" })
  })

  it("a number WhatsApp cannot reach fails the message and is suppressed; a 429 is retried", async () => {
    const c = await newContact(platform.baseUrl, tenant)
    stub.failRecipient(c.phone, 131026, "Message undeliverable", { mode: "async" })
    const res = await send(platform.baseUrl, tenant.live_key, utility(c.id))
    const failed = await stored(c.id, res.body.data.message_id, "failed")
    expect(failed.error.code).toBe("131026")
    const next = await send(platform.baseUrl, tenant.live_key, utility(c.id))
    expect(next.body.data).toMatchObject({ status: "skipped", skip_reason: "suppressed" })

    const d = await newContact(platform.baseUrl, tenant)
    stub.failNext(1, 429)
    const retried = await send(platform.baseUrl, tenant.live_key, utility(d.id))
    const sent = await stored(d.id, retried.body.data.message_id, "sent")
    expect(sent.attempts).toBe(2)
  })

  it("a send whose answer never came is settled by its status webhook, not repeated", async () => {
    stub.setAutoStatuses(["sent", "delivered"])
    stub.delayMs(2_000)
    const c = await newContact(platform.baseUrl, tenant)
    const res = await send(platform.baseUrl, tenant.live_key, utility(c.id))
    const id = res.body.data.message_id as string
    await stored(c.id, id, "delivered", 15_000)
    stub.delayMs(0)
    await new Promise((r) => setTimeout(r, 5_000)) // past the reconcile window: the deliverer's redelivery finds it settled
    expect(stub.countByCallbackData().get(id)).toBe(1)
    stub.setAutoStatuses([])
  }, 30_000)

  it("the webhook refuses a bad signature, an unknown number and a malformed envelope, storing nothing", async () => {
    const [before] = await sql`SELECT count(*)::int AS n FROM messages WHERE tenant_id = ${tenant.tenant_id}`
    const envelope = (phoneNumberId: string) => JSON.stringify({
      object: "whatsapp_business_account",
      entry: [{ id: "1", changes: [{ field: "messages", value: { messaging_product: "whatsapp", metadata: { phone_number_id: phoneNumberId },
        contacts: [{ wa_id: "34600111222", profile: { name: "X" } }],
        messages: [{ from: "34600111222", id: "wamid.bad", timestamp: "1760000000", type: "text", text: { body: "hi" } }] } }] }]
    })
    const body = envelope(number.phoneNumberId)
    expect(await stub.postRaw(body, signWhatsAppBody("not the secret", body))).toBe(401)
    expect(await stub.postRaw(body)).toBe(401)
    const unknown = envelope("999999999")
    expect(await stub.postRaw(unknown, signWhatsAppBody(number.appSecret, unknown))).toBe(401)
    const malformed = JSON.stringify({ object: "whatsapp_business_account", entry: "nope" })
    expect(await stub.postRaw(malformed, signWhatsAppBody(number.appSecret, malformed))).toBe(400)
    expect(await stub.postRaw("{not json", signWhatsAppBody(number.appSecret, "{not json"))).toBe(400)
    const [after] = await sql`SELECT count(*)::int AS n FROM messages WHERE tenant_id = ${tenant.tenant_id}`
    expect(after!.n).toBe(before!.n)
    expect((await stub.handshake(number.verifyToken, "12345")).body).toBe("12345")
    expect((await stub.handshake("wrong-token", "12345")).status).toBe(403)
  })

  it("a message from a number nobody knows becomes a contact", async () => {
    const from = `+3461${String(Math.floor(Math.random() * 10_000_000)).padStart(7, "0")}`
    expect(await stub.postInbound({ phoneNumberId: number.phoneNumberId, from, text: "Hello", name: "Lucía" })).toBe(200)
    const [c] = await eventually("contact", async () => {
      const rows = await sql`SELECT id, first_name FROM contacts WHERE tenant_id = ${tenant.tenant_id} AND phone = ${from}`
      return rows.length > 0 ? rows : undefined
    })
    expect(c!.first_name).toBe("Lucía")
    // Meta's retry of the same message records nothing twice.
    const [again] = await sql`SELECT count(*)::int AS n FROM messages WHERE contact_id = ${c!.id}`
    expect(again!.n).toBe(1)
  })
})
