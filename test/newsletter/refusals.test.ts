import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { configureChannels, useEncryptionKey } from "../support/messaging.ts"
import { createKey, createTenant, request, startPlatform, testSql, type RunningPlatform, type TestTenant } from "../support/platform.ts"
import { startSmtpSink, type SmtpSink } from "../support/smtpSink.ts"
import { configure, newAddress, ORIGIN, signUp } from "./support.ts"
import { FAIL_SECRET, PASS_SECRET, startTurnstileStub, type TurnstileStub } from "./turnstileStub.ts"

// What each refusal answers, and that it stores and sends nothing; the bot check against a local siteverify stub.
const key = useEncryptionKey()
let sink: SmtpSink
let stub: TurnstileStub
let platform: RunningPlatform
let tenant: TestTenant
let botTenant: TestTenant
let publishable: string
let botKey: string
const sql = testSql()

beforeAll(async () => {
  sink = await startSmtpSink()
  stub = await startTurnstileStub(new URL(ORIGIN).hostname)
  process.env.GEP_SMTP_URL = sink.url
  process.env.GEP_TURNSTILE_VERIFY_URL = stub.url
  platform = await startPlatform("newsletter-refusals")
  ;[tenant, botTenant] = await Promise.all([createTenant("nlr"), createTenant("nlbot")])
  for (const t of [tenant, botTenant]) await configureChannels(sql, key, t, { email: { from_address: "news@hotelexample.com" } })
  publishable = (await configure(platform.baseUrl, tenant.live_key, { enabled: true, allowed_origins: [ORIGIN] })).publishable_key
  botKey = (await configure(platform.baseUrl, botTenant.live_key, { enabled: true, allowed_origins: [ORIGIN], bot_check: { enabled: true, secret: FAIL_SECRET } })).publishable_key
})
afterAll(async () => {
  await platform?.stop()
  await sink?.close()
  await stub?.close()
  await sql.end()
})

const rowsOf = async (t: TestTenant, email: string) => (await sql`SELECT id FROM newsletter_subscriptions WHERE tenant_id = ${t.tenant_id} AND email = ${email}`).length
const contactsOf = async (t: TestTenant, email: string) => (await sql`SELECT id FROM contacts WHERE tenant_id = ${t.tenant_id} AND email = ${email}`).length
const expectNothingStored = async (t: TestTenant, email: string) => {
  expect(await rowsOf(t, email)).toBe(0)
  expect(await contactsOf(t, email)).toBe(0)
  expect(sink.mails.filter((m) => m.to.includes(email))).toHaveLength(0)
}

describe("newsletter refusals", () => {
  it("a filled honeypot answers like a success and stores nothing", async () => {
    const email = newAddress("bot")
    const res = await signUp(platform.baseUrl, publishable, { email, _hp: "http://spam.example" })
    expect(res.status).toBe(202)
    expect(res.body.data.status).toBe("pending")
    await new Promise((r) => setTimeout(r, 1_000))
    await expectNothingStored(tenant, email)
  })

  it("a page on another origin, or with no origin at all, gets 403; the Referer of an allowed page is enough", async () => {
    const email = newAddress("origin")
    const evil = await signUp(platform.baseUrl, publishable, { email }, { origin: "https://evil.example" })
    expect(evil.status).toBe(403)
    expect(evil.body.error.code).toBe("ORIGIN_NOT_ALLOWED")
    expect(evil.headers.get("access-control-allow-origin")).toBeNull()
    expect((await signUp(platform.baseUrl, publishable, { email }, {})).status).toBe(403)
    await expectNothingStored(tenant, email)
    const referred = await signUp(platform.baseUrl, publishable, { email }, { referer: `${ORIGIN}/offers?x=1` })
    expect(referred.status, JSON.stringify(referred.body)).toBe(202)
  })

  it("a disabled widget answers 403 with a clear message, to browsers and servers", async () => {
    const off = await createTenant("nloff")
    const offKey = (await configure(platform.baseUrl, off.live_key, { enabled: false, allowed_origins: [ORIGIN] })).publishable_key
    const email = newAddress("off")
    for (const res of [await signUp(platform.baseUrl, offKey, { email }), await signUp(platform.baseUrl, off.live_key, { email }, {})]) {
      expect(res.status).toBe(403)
      expect(res.body.error).toMatchObject({ code: "NEWSLETTER_DISABLED", message: "Newsletter signup is not enabled" })
    }
    const none = await createTenant("nlnone")
    expect((await signUp(platform.baseUrl, none.live_key, { email }, {})).body.error.code).toBe("NEWSLETTER_DISABLED")
    await expectNothingStored(off, email)
  })

  it("consent must be true; the address, language, hotel and key are checked", async () => {
    const email = newAddress("rules")
    const noConsent = await signUp(platform.baseUrl, publishable, { email, consent: false })
    expect(noConsent.status).toBe(422)
    expect(noConsent.body.error).toMatchObject({ code: "CONSENT_REQUIRED", details: { consent: ["must be true"] } })
    const long = await signUp(platform.baseUrl, publishable, { email: `${"a".repeat(250)}@gmail.com` })
    expect(long.status).toBe(400)
    expect(long.body.error.details.email).toBeDefined()
    // A malformed request from an allowed page still carries CORS, so the page can read why.
    expect(long.headers.get("access-control-allow-origin")).toBe(ORIGIN)
    expect((await signUp(platform.baseUrl, publishable, { email: "not-an-address" })).body.error.details.email).toBeDefined()
    expect((await signUp(platform.baseUrl, publishable, { email, language: "english!" })).body.error.details.language).toBeDefined()
    const hotel = await signUp(platform.baseUrl, publishable, { email, hotel_id: botTenant.hotel_id })
    expect(hotel.status).toBe(422)
    expect(hotel.body.error.code).toBe("HOTEL_UNKNOWN")
    expect((await signUp(platform.baseUrl, "svc_pub_" + "x".repeat(40), { email })).status).toBe(401)
    await expectNothingStored(tenant, email)
  })

  it("a server with a core key skips origin and bot check, but needs guests:write", async () => {
    const narrow = await createKey(botTenant.tenant_id, ["guests:read"])
    const email = newAddress("server")
    const refused = await signUp(platform.baseUrl, narrow.key, { email }, {})
    expect(refused.status).toBe(403)
    expect(refused.body.error.code).toBe("FORBIDDEN")
    const before = stub.requests.length
    const res = await signUp(platform.baseUrl, botTenant.live_key, { email }, {})
    expect(res.status, JSON.stringify(res.body)).toBe(202)
    expect(stub.requests.length).toBe(before)
  })

  it("the bot check: a failing token gets 403 with Cloudflare's codes, a passing one goes through, an outage fails closed", async () => {
    const email = newAddress("turnstile")
    const missing = await signUp(platform.baseUrl, botKey, { email })
    expect(missing.status).toBe(403)
    expect(missing.body.error).toMatchObject({ code: "BOT_CHECK_FAILED", details: { error_codes: ["missing-input-response"] } })
    const failed = await signUp(platform.baseUrl, botKey, { email, turnstile_token: "XXXX.DUMMY.TOKEN.XXXX" })
    expect(failed.status).toBe(403)
    expect(failed.body.error).toMatchObject({ code: "BOT_CHECK_FAILED", details: { error_codes: ["invalid-input-response"] } })
    const sent = stub.requests.at(-1)!
    expect(sent).toMatchObject({ secret: FAIL_SECRET, response: "XXXX.DUMMY.TOKEN.XXXX" })
    expect(sent.idempotency_key).toMatch(/^[0-9a-f-]{36}$/)
    expect(sent.remoteip).toBeDefined()
    await expectNothingStored(botTenant, email)

    await configure(platform.baseUrl, botTenant.live_key, { bot_check: { secret: PASS_SECRET } })
    await new Promise((r) => setTimeout(r, 5_500)) // the publishable-key lookup is cached for 5 s
    stub.hostname = "elsewhere.example"
    const wrongHost = await signUp(platform.baseUrl, botKey, { email, turnstile_token: "XXXX.DUMMY.TOKEN.XXXX" })
    expect(wrongHost.body.error?.details?.error_codes).toEqual(["hostname-mismatch"])
    stub.hostname = new URL(ORIGIN).hostname
    const passed = await signUp(platform.baseUrl, botKey, { email, turnstile_token: "XXXX.DUMMY.TOKEN.XXXX" })
    expect(passed.status, JSON.stringify(passed.body)).toBe(202)
    expect(await rowsOf(botTenant, email)).toBe(1)

    stub.down = true
    const down = await signUp(platform.baseUrl, botKey, { email: newAddress("down"), turnstile_token: "XXXX.DUMMY.TOKEN.XXXX" })
    stub.down = false
    expect(down.status).toBe(503)
    expect(down.body.error.code).toBe("BOT_CHECK_UNAVAILABLE")
    expect(down.headers.get("retry-after")).toBeDefined()
  })

  it("set-up refusals: a bot check without its secret, an origin that is not one, and enabling without an email channel", async () => {
    const fresh = await createTenant("nlsetup")
    const patch = (body: Record<string, unknown>) => request(platform.baseUrl, "PATCH", "/api/v1/newsletter/config", { key: fresh.live_key, body })
    expect((await patch({ bot_check: { enabled: true } })).body.error.code).toBe("BOT_CHECK_SECRET_REQUIRED")
    expect((await patch({ allowed_origins: ["https://a.example/path"] })).body.error.details["allowed_origins[0]"]).toBeDefined()
    expect((await patch({ enabled: true })).body.error.code).toBe("CHANNEL_NOT_CONFIGURED")
    const saved = await patch({ allowed_origins: ["https://A.example"], bot_check: { enabled: true, secret: PASS_SECRET } })
    expect(saved.status).toBe(200)
    expect(saved.body.data).toMatchObject({ enabled: false, allowed_origins: ["https://a.example"], bot_check: { enabled: true, secret_set: true } })
    expect(JSON.stringify(saved.body)).not.toContain(PASS_SECRET)
    const [row] = await sql`SELECT bot_check_secret_encrypted FROM newsletter_settings WHERE tenant_id = ${fresh.tenant_id}`
    expect(Buffer.from(row!.bot_check_secret_encrypted).toString("latin1")).not.toContain(PASS_SECRET)
  })

  it("a CORS preflight from an allowed origin gets the headers; another origin gets none", async () => {
    const ok = await fetch(`${platform.baseUrl}/api/v1/newsletter/subscribe`, { method: "OPTIONS", headers: { origin: ORIGIN, "access-control-request-method": "POST" } })
    expect(ok.status).toBe(204)
    expect(ok.headers.get("access-control-allow-origin")).toBe(ORIGIN)
    expect(ok.headers.get("access-control-allow-headers")).toContain("Authorization")
    const evil = await fetch(`${platform.baseUrl}/api/v1/newsletter/subscribe`, { method: "OPTIONS", headers: { origin: "https://evil.example", "access-control-request-method": "POST" } })
    expect(evil.headers.get("access-control-allow-origin")).toBeNull()
  })
})
