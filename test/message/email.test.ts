import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { makeCertificate, startReceiver, trustForThisProcess, type Receiver } from "../support/httpsReceiver.ts"
import { configureChannels, messagesOf, newContact, send, useEncryptionKey } from "../support/messaging.ts"
import { createTenant, post, startPlatform, testSql, type RunningPlatform, type TestTenant } from "../support/platform.ts"
import { startSmtpSink, type SmtpSink } from "../support/smtpSink.ts"
import { eventually, expectVerifies, subscribe } from "../support/webhook.ts"

// Real SMTP (smtp-server + mailparser), a real HTTPS webhook receiver, the real platform in this process.
const key = useEncryptionKey()
let sink: SmtpSink
let receiver: Receiver
let platform: RunningPlatform
let tenant: TestTenant
let secret: string
const sql = testSql()

beforeAll(async () => {
  sink = await startSmtpSink()
  const cert = makeCertificate()
  trustForThisProcess(cert)
  receiver = await startReceiver(cert)
  process.env.GEP_WEBHOOKS_ALLOW_LOOPBACK = "1"
  process.env.GEP_SMTP_URL = sink.url
  process.env.GEP_SEND_BACKOFF_MS = "100"
  process.env.GEP_SEND_MAX_ATTEMPTS = "3"
  platform = await startPlatform("email")
  tenant = await createTenant("mail")
  await configureChannels(sql, key, tenant, {
    email: {
      from_address: "stay@hotelexample.com", from_name: "Hotel Example", reply_to: "desk@hotelexample.com",
      hotel_overrides: { [tenant.hotel_id]: { from_name: "Hotel Example Madrid" } }
    }
  })
  secret = (await subscribe(platform.baseUrl, tenant.live_key, { url: receiver.url("/events"), event_types: ["message.sent", "message.failed", "conversation.created"] })).secret
})
afterAll(async () => {
  await platform?.stop()
  await sink?.close()
  await receiver?.close()
  await sql.end()
})

const mailTo = (address: string) => eventually(`a mail to ${address}`, async () => sink.mails.find((m) => m.to.includes(address)))
const stored = async (contactId: string, id: string, status: string) =>
  eventually(`message ${id} ${status}`, async () => (await messagesOf(platform.baseUrl, tenant.live_key, contactId)).find((m) => m.id === id && m.status === status))

describe("email through the one send path", () => {
  it("a utility email leaves once, with a deterministic Message-ID, the hotel's sender and no unsubscribe link", async () => {
    const c = await newContact(platform.baseUrl, tenant)
    const res = await send(platform.baseUrl, tenant.live_key, {
      contact_id: c.id, channel: "email", category: "utility", hotel_id: tenant.hotel_id, subject: "Your stay", text: "See you soon", html: "<p>See you soon</p>"
    })
    expect(res.status, JSON.stringify(res.body)).toBe(202)
    expect(res.body.data, JSON.stringify(res.body)).toMatchObject({ status: "queued", skip_reason: null })
    const id = res.body.data.message_id as string
    const mail = await mailTo(c.email!)
    expect(mail.messageId).toBe(`<${id}@hotelexample.com>`)
    expect(mail.from).toContain("Hotel Example Madrid")
    expect(mail.from).toContain("stay@hotelexample.com")
    expect(mail.subject).toBe("Your stay")
    expect(mail.text?.trim()).toBe("See you soon")
    expect(mail.headers.get("reply-to")).toBeDefined()
    expect(mail.raw).not.toMatch(/^List-Unsubscribe/m)
    const m = await stored(c.id, id, "sent")
    expect(m).toMatchObject({ channel: "email", direction: "outbound", category: "utility", origin: "api", attempts: 1, to: c.email })
    expect(m.statuses.map((s: any) => s.status)).toEqual(["sent"])
    const events = await receiver.waitFor("/events", 2)
    for (const e of events) expectVerifies(e, secret)
    const bodies = events.map((e) => JSON.parse(e.raw.toString()))
    const sent = bodies.find((b) => b.event_type === "message.sent" && b.data.message.id === id)
    expect(sent.data.message).toMatchObject({ status: "sent", channel: "email", conversation_id: m.conversation_id })
    expect(sent.data.contact.id).toBe(c.id)
    expect(bodies.some((b) => b.event_type === "conversation.created" && b.data.conversation.id === m.conversation_id)).toBe(true)
    expect(sink.countByMessageId().get(`<${id}@hotelexample.com>`)).toBe(1)
  })

  it("marketing needs consent: without it the send is a recorded skip and nothing leaves", async () => {
    const c = await newContact(platform.baseUrl, tenant, { email_consent: false })
    const res = await send(platform.baseUrl, tenant.live_key, { contact_id: c.id, channel: "email", subject: "Offer", text: "20% off" })
    expect(res.status).toBe(202)
    expect(res.body.data).toMatchObject({ status: "skipped", skip_reason: "no_email_marketing_consent" })
    const noEmail = await newContact(platform.baseUrl, tenant, { email: null })
    const skipped = await send(platform.baseUrl, tenant.live_key, { contact_id: noEmail.id, channel: "email", category: "utility", subject: "S", text: "T" })
    expect(skipped.body.data).toMatchObject({ status: "skipped", skip_reason: "no_email" })
    await new Promise((r) => setTimeout(r, 300))
    expect(sink.mails.some((m) => m.to.includes(c.email!))).toBe(false)
  })

  it("marketing email carries RFC 8058 one-click unsubscribe; the POST records the opt-out and no feed re-subscribes", async () => {
    const c = await newContact(platform.baseUrl, tenant, { email_consent: true })
    const res = await send(platform.baseUrl, tenant.live_key, { contact_id: c.id, channel: "email", category: "marketing", subject: "Spring", html: "<b>Spring</b>" })
    expect(res.body.data.status).toBe("queued")
    const mail = await mailTo(c.email!)
    // Read off the raw message: mailparser folds List-* headers into one structured `list` header.
    expect(mail.raw).toMatch(/^List-Unsubscribe-Post: List-Unsubscribe=One-Click\r?$/m)
    const link = /^List-Unsubscribe: <(https?:[^>]+)>/m.exec(mail.raw.replace(/\r?\n[ \t]+/g, " "))![1]!
    expect(link.startsWith(`${platform.baseUrl}/api/v1/unsubscribe/`)).toBe(true)
    // A GET (a scanner following the link) changes nothing.
    expect((await fetch(link)).status).toBe(200)
    const [before] = await sql`SELECT email_consent, email_opted_out_at FROM contacts WHERE id = ${c.id}`
    expect(before).toMatchObject({ email_consent: true, email_opted_out_at: null })
    const oneClick = await fetch(link, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: "List-Unsubscribe=One-Click" })
    expect(oneClick.status).toBe(200)
    const [after] = await sql`SELECT email_consent, email_opted_out_at FROM contacts WHERE id = ${c.id}`
    expect(after!.email_consent).toBe(false)
    expect(after!.email_opted_out_at).not.toBeNull()
    const [audit] = await sql`SELECT granted, source FROM consent_records WHERE contact_id = ${c.id} AND channel = 'email' ORDER BY id DESC LIMIT 1`
    expect(audit).toMatchObject({ granted: false, source: "list_unsubscribe" })
    // A PMS feed claiming consent again does not re-subscribe.
    const feed = await post(platform.baseUrl, "/api/v1/guests", tenant.live_key, { phone: c.phone, first_name: "Ana", last_name: "Feed", email: c.email, email_consent: true })
    expect(feed.status, JSON.stringify(feed.body)).toBe(200)
    const [still] = await sql`SELECT email_consent FROM contacts WHERE id = ${c.id}`
    expect(still!.email_consent).toBe(false)
    const again = await send(platform.baseUrl, tenant.live_key, { contact_id: c.id, channel: "email", subject: "Spring 2", text: "x" })
    expect(again.body.data).toMatchObject({ status: "skipped", skip_reason: "opted_out" })
    // Utility mail still reaches an opted-out guest.
    const utility = await send(platform.baseUrl, tenant.live_key, { contact_id: c.id, channel: "email", category: "utility", subject: "Check-in", text: "x" })
    expect(utility.body.data.status).toBe("queued")
    // A forged token is refused.
    expect((await fetch(`${link.slice(0, -4)}AAAA`, { method: "POST" })).status).toBe(404)
  })

  it("a hard bounce fails the message and suppresses the address; a temporary refusal is retried", async () => {
    const bounced = await newContact(platform.baseUrl, tenant)
    sink.failRecipient(bounced.email!, 550)
    const res = await send(platform.baseUrl, tenant.live_key, { contact_id: bounced.id, channel: "email", category: "utility", subject: "S", text: "T" })
    const failed = await stored(bounced.id, res.body.data.message_id, "failed")
    expect(failed.error.code).toBe("550")
    const next = await send(platform.baseUrl, tenant.live_key, { contact_id: bounced.id, channel: "email", category: "utility", subject: "S2", text: "T" })
    expect(next.body.data).toMatchObject({ status: "skipped", skip_reason: "suppressed" })

    const flaky = await newContact(platform.baseUrl, tenant)
    sink.failNext(1, 451)
    const retried = await send(platform.baseUrl, tenant.live_key, { contact_id: flaky.id, channel: "email", category: "utility", subject: "S", text: "T" })
    const sent = await stored(flaky.id, retried.body.data.message_id, "sent")
    expect(sent.attempts).toBe(2)
  })

  it("refuses what names nothing of the account, in the core shape naming the field, recording nothing", async () => {
    const other = await createTenant("mail-other")
    const stranger = await newContact(platform.baseUrl, other)
    const foreign = await send(platform.baseUrl, tenant.live_key, { contact_id: stranger.id, channel: "email", category: "utility", subject: "S", text: "T" })
    expect(foreign.status).toBe(404)
    expect(foreign.body.error.details).toHaveProperty("contact_id")
    const unconfigured = await send(platform.baseUrl, other.live_key, { contact_id: stranger.id, channel: "email", category: "utility", subject: "S", text: "T" })
    expect(unconfigured.status).toBe(422)
    expect(unconfigured.body.error).toMatchObject({ code: "CHANNEL_NOT_CONFIGURED" })
    expect(unconfigured.body.error.details).toHaveProperty("channel")
    const noSubject = await send(platform.baseUrl, tenant.live_key, { contact_id: stranger.id, channel: "email", text: "T" })
    expect(noSubject.status).toBe(400)
    expect(noSubject.body.error.details).toHaveProperty("subject")
    const [row] = await sql`SELECT count(*)::int AS n FROM messages WHERE contact_id = ${stranger.id}`
    expect(row!.n).toBe(0)
  })

  it("a retry with the same Idempotency-Key answers the first message and sends nothing twice", async () => {
    const c = await newContact(platform.baseUrl, tenant)
    const body = { contact_id: c.id, channel: "email", category: "utility", subject: "Once", text: "T" }
    const [a, b] = await Promise.all([send(platform.baseUrl, tenant.live_key, body, "idem-1"), send(platform.baseUrl, tenant.live_key, body, "idem-1")])
    expect(a.body.data.message_id).toBe(b.body.data.message_id)
    await stored(c.id, a.body.data.message_id, "sent")
    await new Promise((r) => setTimeout(r, 300))
    expect(sink.mails.filter((m) => m.to.includes(c.email!))).toHaveLength(1)
  })
})
