import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { type MailingPlatform, startMailingPlatform, useEncryptionKey } from "../support/messaging.ts"
import { request, testSql, type RunningPlatform, type TestTenant } from "../support/platform.ts"
import type { SmtpSink } from "../support/smtpSink.ts"
import { eventually } from "../support/webhook.ts"
import { configure, linkIn, newAddress, ORIGIN, signUp, submitConfirm } from "./support.ts"

// Real SMTP sink, real platform (HTTP, JetStream, actors, PostgreSQL): sign-up → email → page → confirm → consent.
const key = useEncryptionKey()
let mailing: MailingPlatform
let sink: SmtpSink
let platform: RunningPlatform
let tenant: TestTenant
let publishable: string
const sql = testSql()

beforeAll(async () => {
  mailing = await startMailingPlatform(sql, key, "newsletter-doi", { GEP_SEND_BACKOFF_MS: "100" })
  ;({ sink, platform, tenant } = mailing)
  publishable = (await configure(platform.baseUrl, tenant.live_key, { enabled: true, allowed_origins: [ORIGIN], fields: { first_name: true } })).publishable_key
})
afterAll(async () => {
  await mailing?.stop()
  await sql.end()
})

const mailsTo = (address: string) => sink.mails.filter((m) => m.to.includes(address))
const mailTo = (address: string, nth = 1) => eventually(`mail ${nth} to ${address}`, async () => mailsTo(address)[nth - 1])
const subscription = async (email: string) => (await sql`SELECT * FROM newsletter_subscriptions WHERE tenant_id = ${tenant.tenant_id} AND email = ${email}`)[0]
const contact = async (id: string) => (await sql`SELECT * FROM contacts WHERE id = ${id}`)[0]!
const consents = (contactId: string) => sql`SELECT * FROM consent_records WHERE contact_id = ${contactId} ORDER BY id`
/** Long enough for a wrongly queued email to have arrived (sends leave within a second here). */
const settle = () => new Promise((r) => setTimeout(r, 1_500))

describe("newsletter double opt-in", () => {
  it("the widget reads its settings with the publishable key, and sees nothing secret", async () => {
    expect(publishable).toMatch(/^svc_pub_[0-9A-Za-z]{20,}$/)
    const res = await request(platform.baseUrl, "GET", "/api/v1/newsletter/config", { key: publishable, headers: { origin: ORIGIN } })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    expect(res.headers.get("access-control-allow-origin")).toBe(ORIGIN)
    expect(res.body.data).toMatchObject({ enabled: true, double_opt_in: true, fields: { first_name: { enabled: true } }, honeypot_field: "_hp" })
    expect(JSON.stringify(res.body)).not.toContain("svc_pub_")
    const [row] = await sql`SELECT publishable_key_sha256, publishable_key_encrypted FROM newsletter_settings WHERE tenant_id = ${tenant.tenant_id}`
    expect(Buffer.from(row!.publishable_key_encrypted).toString("latin1")).not.toContain(publishable)
    // The set-up call shows the same key again (it is in every page), never a new one.
    expect((await configure(platform.baseUrl, tenant.live_key, {})).publishable_key).toBe(publishable)
  })

  it("sign-up → email → GET shows a button and changes nothing → POST confirms, consent recorded with evidence", async () => {
    const email = newAddress()
    const res = await signUp(platform.baseUrl, publishable, { email: email.toUpperCase(), first_name: "Ana", language: "ES", hotel_id: tenant.hotel_id, source: "footer-form", consent_text: "I want offers" })
    expect(res.status, JSON.stringify(res.body)).toBe(202)
    expect(res.body.data.status).toBe("pending")
    expect(res.headers.get("access-control-allow-origin")).toBe(ORIGIN)
    const mail = await mailTo(email)
    expect(mail.subject).toContain("confirm")
    expect(mail.text).toContain("Hello Ana")
    const link = linkIn(mail.text)

    const pending = await subscription(email)
    expect(pending).toMatchObject({ status: "pending", first_name: "Ana", language: "es", source: "footer-form", caller: "browser", origin: ORIGIN, sends: 1 })
    expect((await contact(pending!.contact_id)).email_consent).toBe(false)

    const page = await fetch(link)
    const html = await page.text()
    expect(page.status).toBe(200)
    expect(page.headers.get("content-type")).toContain("text/html")
    expect(page.headers.get("cache-control")).toBe("no-store")
    expect(html).toMatch(/<form method="post"[^>]*>/)
    expect(html).toContain("<button")
    // A scanner's GET changed nothing.
    expect((await subscription(email))!.status).toBe("pending")
    expect((await contact(pending!.contact_id)).email_consent).toBe(false)
    expect(await consents(pending!.contact_id)).toHaveLength(0)

    const confirmed = await submitConfirm(link, "Mozilla/5.0 (guest browser)")
    expect(confirmed.status, confirmed.text).toBe(200)
    expect(confirmed.text).toContain("You are subscribed")
    const done = await subscription(email)
    expect(done).toMatchObject({ status: "subscribed", confirm_user_agent: "Mozilla/5.0 (guest browser)" })
    expect(done!.confirmed_at).toBeInstanceOf(Date)
    expect((await contact(pending!.contact_id)).email_consent).toBe(true)
    const records = await consents(pending!.contact_id)
    expect(records).toHaveLength(1)
    expect(records[0]).toMatchObject({ channel: "email", granted: true, source: "newsletter:footer-form", user_agent: "Mozilla/5.0 (guest browser)" })
    expect(records[0]!.ip).toMatch(/127\.0\.0\.1/)
    expect(records[0]!.captured_at).toBeInstanceOf(Date)

    // Idempotent: a second click shows the same page and records nothing more.
    const again = await submitConfirm(link)
    expect(again.status).toBe(200)
    expect(await consents(pending!.contact_id)).toHaveLength(1)
  })

  it("an already subscribed address answers subscribed and gets no new email", async () => {
    const email = newAddress("subscribed")
    await signUp(platform.baseUrl, publishable, { email })
    const confirmed = await submitConfirm(linkIn((await mailTo(email)).text))
    expect(confirmed.status).toBe(200)
    const res = await signUp(platform.baseUrl, publishable, { email })
    expect(res.status).toBe(202)
    expect(res.body.data.status).toBe("subscribed")
    const server = await signUp(platform.baseUrl, tenant.live_key, { email }, {})
    expect(server.body.data.status).toBe("subscribed")
    await settle()
    expect(mailsTo(email)).toHaveLength(1)
  })

  it("a pending address gets at most one email per 10 minutes; a resend supersedes the older link", async () => {
    const email = newAddress("resend")
    for (let i = 0; i < 3; i++) expect((await signUp(platform.baseUrl, publishable, { email })).body.data.status).toBe("pending")
    const first = linkIn((await mailTo(email)).text)
    await settle()
    expect(mailsTo(email)).toHaveLength(1)
    expect((await subscription(email))!.sends).toBe(1)

    await sql`UPDATE newsletter_subscriptions SET recent_sends = ARRAY[now() - interval '11 minutes'] WHERE tenant_id = ${tenant.tenant_id} AND email = ${email}`
    expect((await signUp(platform.baseUrl, publishable, { email })).body.data.status).toBe("pending")
    const second = linkIn((await mailTo(email, 2)).text)
    expect(second).not.toBe(first)
    const stale = await submitConfirm(first)
    expect(stale.status).toBe(410)
    expect((await subscription(email))!.status).toBe("pending")
    expect((await submitConfirm(second)).status).toBe(200)
    expect((await subscription(email))!.status).toBe("subscribed")
  })

  it("a pending address gets at most three emails in 24 hours, then one again once the oldest is a day old", async () => {
    const email = newAddress("cap")
    await signUp(platform.baseUrl, publishable, { email })
    await mailTo(email)
    const hoursAgo = (h: number) => sql`UPDATE newsletter_subscriptions
      SET recent_sends = ARRAY[now() - make_interval(hours => ${h}), now() - interval '2 hours', now() - interval '1 hour']
      WHERE tenant_id = ${tenant.tenant_id} AND email = ${email}`
    await hoursAgo(23)
    const capped = await signUp(platform.baseUrl, publishable, { email })
    expect(capped.status).toBe(202)
    expect(capped.body.data.status).toBe("pending")
    await settle()
    expect(mailsTo(email)).toHaveLength(1)
    await hoursAgo(25)
    await signUp(platform.baseUrl, publishable, { email })
    await mailTo(email, 2)
    const row = await subscription(email)
    expect(row!.recent_sends).toHaveLength(3) // the day-old send dropped, this one added
  })

  it("no confirmation email left twice (one Message-ID each)", async () => {
    await settle()
    for (const [id, count] of sink.countByMessageId()) expect(count, id).toBe(1)
  })

  it("a tampered or unknown token shows the no-longer-valid page and changes nothing", async () => {
    const bad = `${platform.baseUrl}/api/public/newsletter/confirm?token=v1.e30.AAAA`
    expect((await fetch(bad)).status).toBe(410)
    expect((await submitConfirm(bad)).status).toBe(410)
  })
})
