import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { randomBytes } from "node:crypto"
import {
  readEmailChannel, readWhatsAppChannel, senderFor, whatsAppByPhoneNumberId, whatsAppVerifyTokenKnown
} from "../../core/channel/repository.ts"
import { createKey, createTenant, request, testConfig, testSql, type HttpResult, type TestTenant } from "../support/platform.ts"
import { spawnIngress, type IngressProcess } from "../support/processes.ts"

// The channel API against a real ingress process at GEP_LOG_LEVEL=debug, so the test can read every line it logs:
// no secret may appear in a log line, nor in any answer.

const KEY = randomBytes(32)
let ingress: IngressProcess
let tenant: TestTenant
const sql = testSql()
/** Every answer of this file, to search for secrets at the end. */
const answers: Array<HttpResult> = []
/** Every secret this file sent. */
const secrets: Array<string> = []

beforeAll(async () => {
  ingress = await spawnIngress(testConfig("channels"), { GEP_WEBHOOK_ENCRYPTION_KEY: KEY.toString("base64"), GEP_LOG_LEVEL: "debug" })
  tenant = await createTenant("channels")
}, 60_000)
afterAll(async () => {
  await ingress?.stop()
  await sql.end()
})

const call = async (method: string, path: string, body?: unknown, key = tenant.live_key) => {
  const res = await request(ingress.baseUrl, method, path, body === undefined ? { key } : { key, body })
  answers.push(res)
  return res
}
const secret = (label: string) => {
  const s = `${label}_${randomBytes(24).toString("base64url")}`
  secrets.push(s)
  return s
}
const phoneNumberId = () => String(100_000_000_000_000 + Math.floor(Math.random() * 899_999_999_999_999))
const live = (t: TestTenant) => ({ tenant_id: t.tenant_id, sandbox: false })

describe("email channel", () => {
  it("404 CHANNEL_NOT_CONFIGURED before the first PUT; a PUT answers the stored configuration; GET reads it back", async () => {
    const t = await createTenant("email-first")
    const before = await call("GET", "/api/v1/channels/email", undefined, t.live_key)
    expect(before.status).toBe(404)
    expect(before.body).toMatchObject({ success: false, error: { code: "CHANNEL_NOT_CONFIGURED", details: { channel: [expect.any(String)] } } })

    const put = await call("PUT", "/api/v1/channels/email", { from_address: "stay@hotel.example" }, t.live_key)
    expect(put.status).toBe(200)
    expect(put.body).toEqual({
      success: true,
      data: { mode: "live", from_address: "stay@hotel.example", from_name: null, reply_to: null, hotel_overrides: {}, send_rate_per_minute: null, updated_at: expect.any(String) }
    })
    const full = {
      from_address: "reservas@grupo.example", from_name: "Grupo Hoteles", reply_to: "frontdesk@grupo.example",
      hotel_overrides: { [t.hotel_id]: { from_name: "Hotel Barcelona", reply_to: "bcn@grupo.example" } }, send_rate_per_minute: 120
    }
    const second = await call("PUT", "/api/v1/channels/email", full, t.live_key)
    expect(second.body.data).toMatchObject({ mode: "live", ...full })
    expect((await call("GET", "/api/v1/channels/email", undefined, t.live_key)).body).toEqual(second.body)

    // The send path's reader sees what the API stored, the hotel's override field by field.
    const stored = (await readEmailChannel(sql, live(t)))!
    expect(senderFor(stored, t.hotel_id)).toEqual({ from_address: "reservas@grupo.example", from_name: "Hotel Barcelona", reply_to: "bcn@grupo.example" })
    expect(senderFor(stored, null)).toEqual({ from_address: "reservas@grupo.example", from_name: "Grupo Hoteles", reply_to: "frontdesk@grupo.example" })
  })

  it("a field not sent keeps its stored value; null clears; hotel_overrides is replaced whole", async () => {
    const t = await createTenant("email-merge")
    await call("PUT", "/api/v1/channels/email", {
      from_address: "a@grupo.example", from_name: "A", reply_to: "r@grupo.example", hotel_overrides: { [t.hotel_id]: { from_name: "H" } }, send_rate_per_minute: 60
    }, t.live_key)
    const kept = await call("PUT", "/api/v1/channels/email", { from_address: "b@grupo.example" }, t.live_key)
    expect(kept.body.data).toMatchObject({ from_address: "b@grupo.example", from_name: "A", reply_to: "r@grupo.example", hotel_overrides: { [t.hotel_id]: { from_name: "H" } }, send_rate_per_minute: 60 })
    const cleared = await call("PUT", "/api/v1/channels/email", { from_address: "b@grupo.example", from_name: null, reply_to: null, hotel_overrides: {}, send_rate_per_minute: null }, t.live_key)
    expect(cleared.body.data).toMatchObject({ from_name: null, reply_to: null, hotel_overrides: {}, send_rate_per_minute: null })
  })

  it("bad input answers in the core error shape naming the field, and writes nothing", async () => {
    const t = await createTenant("email-bad")
    const other = await createTenant("email-bad-other")
    await call("PUT", "/api/v1/channels/email", { from_address: "ok@grupo.example" }, t.live_key)
    const cases: Array<[unknown, number, string, string]> = [
      [{ from_address: "not an address" }, 400, "VALIDATION_ERROR", "from_address"],
      [{}, 400, "VALIDATION_ERROR", "from_address"],
      [{ from_address: "ok@grupo.example", reply_to: "x@" }, 400, "VALIDATION_ERROR", "reply_to"],
      [{ from_address: "ok@grupo.example", from_name: "Evil\r\nBcc: victim@example.com" }, 400, "VALIDATION_ERROR", "from_name"],
      [{ from_address: "ok@grupo.example", send_rate_per_minute: 0 }, 400, "VALIDATION_ERROR", "send_rate_per_minute"],
      [{ from_address: "ok@grupo.example", fromName: "typo" }, 400, "VALIDATION_ERROR", "fromName"],
      [{ from_address: "ok@grupo.example", hotel_overrides: { [t.hotel_id]: {} } }, 400, "VALIDATION_ERROR", `hotel_overrides.${t.hotel_id}`],
      [{ from_address: "ok@grupo.example", hotel_overrides: { [t.hotel_id]: { from_address: "nope" } } }, 400, "VALIDATION_ERROR", `hotel_overrides.${t.hotel_id}.from_address`],
      [{ from_address: "ok@grupo.example", hotel_overrides: { "00000000-0000-4000-8000-000000000000": { from_name: "X" } } }, 422, "HOTEL_NOT_FOUND", "hotel_overrides.00000000-0000-4000-8000-000000000000"],
      [{ from_address: "ok@grupo.example", hotel_overrides: { [other.hotel_id]: { from_name: "X" } } }, 422, "HOTEL_NOT_FOUND", `hotel_overrides.${other.hotel_id}`],
      [{ from_address: "ok@grupo.example", hotel_overrides: { [t.hotel_code]: { from_name: "X" } } }, 422, "HOTEL_NOT_FOUND", `hotel_overrides.${t.hotel_code}`]
    ]
    for (const [body, status, code, field] of cases) {
      const res = await call("PUT", "/api/v1/channels/email", body, t.live_key)
      expect({ body, status: res.status, code: res.body.error?.code }).toEqual({ body, status, code })
      expect(Object.keys(res.body.error.details), JSON.stringify(body)).toContain(field)
    }
    expect((await call("GET", "/api/v1/channels/email", undefined, t.live_key)).body.data).toMatchObject({ from_address: "ok@grupo.example", hotel_overrides: {} })
  })
})

describe("whatsapp channel", () => {
  it("the first PUT needs both secrets; the answer and GET show only that they are set; the send path decrypts them", async () => {
    const t = await createTenant("wa-first")
    const id = phoneNumberId()
    expect((await call("GET", "/api/v1/channels/whatsapp", undefined, t.live_key)).body.error.code).toBe("CHANNEL_NOT_CONFIGURED")
    const missing = await call("PUT", "/api/v1/channels/whatsapp", { phone_number_id: id }, t.live_key)
    expect(missing.status).toBe(400)
    expect(missing.body.error.details).toEqual({ access_token: [expect.any(String)], app_secret: [expect.any(String)] })
    // A misspelt secret field is refused by name, its value never echoed (the last test checks every answer).
    const typo = await call("PUT", "/api/v1/channels/whatsapp", { phone_number_id: id, acces_token: secret("typo"), access_token: secret("t"), app_secret: secret("s") }, t.live_key)
    expect(typo.status).toBe(400)
    expect(typo.body.error.details).toEqual({ acces_token: ["is not a field of this request"] })
    expect((await call("GET", "/api/v1/channels/whatsapp", undefined, t.live_key)).status).toBe(404)

    const token = secret("EAAG"), appSecret = secret("app"), verify = secret("verify")
    const put = await call("PUT", "/api/v1/channels/whatsapp", {
      phone_number_id: id, access_token: token, app_secret: appSecret, verify_token: verify,
      templates: [{ name: "booking_confirmation", language: "es", category: "utility", body_parameters: 3 }]
    }, t.live_key)
    expect(put.status).toBe(200)
    expect(put.body).toEqual({
      success: true,
      data: {
        mode: "live", phone_number_id: id, access_token_set: true, app_secret_set: true, verify_token_set: true,
        templates: [{ name: "booking_confirmation", language: "es", category: "utility", body_parameters: 3 }],
        send_rate_per_minute: null, updated_at: expect.any(String)
      }
    })
    expect((await call("GET", "/api/v1/channels/whatsapp", undefined, t.live_key)).body).toEqual(put.body)

    const [row] = await sql`SELECT access_token_encrypted, app_secret_encrypted, verify_token_sha256 FROM channel_whatsapp WHERE tenant_id = ${t.tenant_id}`
    for (const [blob, plain] of [[row!.access_token_encrypted, token], [row!.app_secret_encrypted, appSecret]] as const) {
      expect((blob as Buffer).includes(Buffer.from(plain))).toBe(false)
    }
    expect(row!.verify_token_sha256).not.toContain(verify)
    expect(await readWhatsAppChannel(sql, live(t), KEY)).toMatchObject({ phone_number_id: id, access_token: token, app_secret: appSecret })
    expect(await whatsAppByPhoneNumberId(sql, id, KEY)).toEqual({ scope: live(t), app_secret: appSecret })
    expect(await whatsAppVerifyTokenKnown(sql, verify)).toBe(true)
  })

  it("secrets not sent are kept, sent ones rotate; verify_token null removes it", async () => {
    const t = await createTenant("wa-rotate")
    const id = phoneNumberId()
    const token = secret("tok"), appSecret = secret("app"), verify = secret("verify")
    await call("PUT", "/api/v1/channels/whatsapp", { phone_number_id: id, access_token: token, app_secret: appSecret, verify_token: verify, send_rate_per_minute: 30 }, t.live_key)
    const kept = await call("PUT", "/api/v1/channels/whatsapp", { phone_number_id: id }, t.live_key)
    expect(kept.body.data).toMatchObject({ access_token_set: true, app_secret_set: true, verify_token_set: true, send_rate_per_minute: 30 })
    expect(await readWhatsAppChannel(sql, live(t), KEY)).toMatchObject({ access_token: token, app_secret: appSecret })

    const rotated = secret("tok2")
    await call("PUT", "/api/v1/channels/whatsapp", { phone_number_id: id, access_token: rotated, verify_token: null }, t.live_key)
    expect(await readWhatsAppChannel(sql, live(t), KEY)).toMatchObject({ access_token: rotated, app_secret: appSecret })
    expect(await whatsAppVerifyTokenKnown(sql, verify)).toBe(false)
    expect((await call("GET", "/api/v1/channels/whatsapp", undefined, t.live_key)).body.data.verify_token_set).toBe(false)
  })

  it("a phone_number_id another account or mode holds answers 409 naming it, and nothing of the request is written", async () => {
    const a = await createTenant("wa-owner")
    const b = await createTenant("wa-claimer")
    const id = phoneNumberId()
    await call("PUT", "/api/v1/channels/whatsapp", { phone_number_id: id, access_token: secret("t"), app_secret: secret("s") }, a.live_key)
    const claim = { phone_number_id: id, access_token: secret("t"), app_secret: secret("s"), templates: [{ name: "x", language: "en", category: "marketing", body_parameters: 0 }] }
    for (const key of [b.live_key, a.test_key]) {
      const res = await call("PUT", "/api/v1/channels/whatsapp", claim, key)
      expect(res.status).toBe(409)
      expect(res.body).toMatchObject({ success: false, error: { code: "PHONE_NUMBER_ID_TAKEN", details: { phone_number_id: [expect.any(String)] } } })
    }
    expect((await call("GET", "/api/v1/channels/whatsapp", undefined, b.live_key)).status).toBe(404)
    expect((await call("GET", "/api/v1/channels/whatsapp", undefined, a.test_key)).status).toBe(404)
    expect(await sql`SELECT 1 FROM whatsapp_templates WHERE tenant_id IN (${a.tenant_id}, ${b.tenant_id})`).toHaveLength(0)

    // b already has a number of its own: a move onto a's number is refused and b keeps its number and templates.
    const own = phoneNumberId()
    await call("PUT", "/api/v1/channels/whatsapp", { ...claim, phone_number_id: own }, b.live_key)
    expect((await call("PUT", "/api/v1/channels/whatsapp", { phone_number_id: id, templates: [] }, b.live_key)).status).toBe(409)
    expect((await call("GET", "/api/v1/channels/whatsapp", undefined, b.live_key)).body.data).toMatchObject({ phone_number_id: own, templates: [claim.templates[0]] })
    expect((await whatsAppByPhoneNumberId(sql, id, KEY))!.scope).toEqual(live(a))
  })

  it("templates in a PUT replace the registered set whole; a duplicate is refused naming it, leaving the set as it was", async () => {
    const t = await createTenant("wa-templates")
    const id = phoneNumberId()
    const first = [
      { name: "welcome", language: "es", category: "marketing", body_parameters: 1 },
      { name: "welcome", language: "en_US", category: "marketing", body_parameters: 1 },
      { name: "otp", language: "es", category: "authentication", body_parameters: 1 }
    ]
    await call("PUT", "/api/v1/channels/whatsapp", { phone_number_id: id, access_token: secret("t"), app_secret: secret("s"), templates: first }, t.live_key)
    const dup = await call("PUT", "/api/v1/channels/whatsapp", {
      phone_number_id: id, templates: [{ name: "a", language: "es", category: "utility", body_parameters: 0 }, { name: "a", language: "es", category: "marketing", body_parameters: 2 }]
    }, t.live_key)
    expect(dup.status).toBe(400)
    expect(Object.keys(dup.body.error.details)).toEqual(["templates[1]"])
    const bad = await call("PUT", "/api/v1/channels/whatsapp", {
      phone_number_id: id, templates: [{ name: "Welcome Back", language: "spanish", category: "promo", body_parameters: 101 }]
    }, t.live_key)
    expect(bad.status).toBe(400)
    expect(Object.keys(bad.body.error.details).sort()).toEqual(["templates[0].body_parameters", "templates[0].category", "templates[0].language", "templates[0].name"])
    const sorted = [...first].sort((x, y) => `${x.name} ${x.language}`.localeCompare(`${y.name} ${y.language}`))
    expect((await call("GET", "/api/v1/channels/whatsapp", undefined, t.live_key)).body.data.templates).toEqual(sorted)

    const replaced = await call("PUT", "/api/v1/channels/whatsapp", { phone_number_id: id, templates: [{ name: "checkin_ready", language: "es", category: "utility", body_parameters: 2 }] }, t.live_key)
    expect(replaced.body.data.templates).toEqual([{ name: "checkin_ready", language: "es", category: "utility", body_parameters: 2 }])
    expect((await call("PUT", "/api/v1/channels/whatsapp", { phone_number_id: id }, t.live_key)).body.data.templates).toHaveLength(1)
    expect((await call("PUT", "/api/v1/channels/whatsapp", { phone_number_id: id, templates: [] }, t.live_key)).body.data.templates).toEqual([])
  })

  it("concurrent PUTs of different template sets end in exactly one of them, never a mix", async () => {
    const t = await createTenant("wa-race")
    const id = phoneNumberId()
    await call("PUT", "/api/v1/channels/whatsapp", { phone_number_id: id, access_token: secret("t"), app_secret: secret("s") }, t.live_key)
    const sets = Array.from({ length: 8 }, (_, n) =>
      Array.from({ length: 5 }, (_, i) => ({ name: `set${n}_t${i}`, language: "es", category: "utility", body_parameters: n })))
    const answers = await Promise.all(sets.map((templates) => call("PUT", "/api/v1/channels/whatsapp", { phone_number_id: id, templates }, t.live_key)))
    expect(answers.map((a) => a.status)).toEqual(sets.map(() => 200))
    const final = (await readWhatsAppChannel(sql, live(t), KEY))!.templates
    expect(sets).toContainEqual(final)
  })

  it("one template at a time: PUT and DELETE /templates/{name}/{language}", async () => {
    const t = await createTenant("wa-one")
    const path = "/api/v1/channels/whatsapp/templates/late_checkout/es"
    const before = await call("PUT", path, { category: "utility", body_parameters: 1 }, t.live_key)
    expect(before.status).toBe(404)
    expect(before.body.error.code).toBe("CHANNEL_NOT_CONFIGURED")
    await call("PUT", "/api/v1/channels/whatsapp", { phone_number_id: phoneNumberId(), access_token: secret("t"), app_secret: secret("s") }, t.live_key)
    const added = await call("PUT", path, { category: "utility", body_parameters: 1 }, t.live_key)
    expect(added.body).toEqual({ success: true, data: { mode: "live", name: "late_checkout", language: "es", category: "utility", body_parameters: 1 } })
    expect((await call("PUT", path, { category: "marketing", body_parameters: 2 }, t.live_key)).status).toBe(200)
    expect((await readWhatsAppChannel(sql, live(t), KEY))!.templates).toEqual([{ name: "late_checkout", language: "es", category: "marketing", body_parameters: 2 }])
    const badPath = await call("PUT", "/api/v1/channels/whatsapp/templates/Late%20Checkout/es", { category: "utility", body_parameters: 1 }, t.live_key)
    expect(badPath.status).toBe(400)
    expect(Object.keys(badPath.body.error.details)).toEqual(["name"])
    expect((await call("PUT", path, { category: "utility", body_parameters: -1 }, t.live_key)).body.error.details).toHaveProperty("body_parameters")
    expect((await call("DELETE", path, undefined, t.live_key)).body).toEqual({ success: true, data: { mode: "live", name: "late_checkout", language: "es", removed: true } })
    const again = await call("DELETE", path, undefined, t.live_key)
    expect(again.status).toBe(404)
    expect(again.body.error.code).toBe("TEMPLATE_NOT_FOUND")
  })
})

describe("isolation and scopes", () => {
  it("a sandbox key reads and writes the sandbox configuration, a live key the live one", async () => {
    const t = await createTenant("modes")
    await call("PUT", "/api/v1/channels/email", { from_address: "live@grupo.example" }, t.live_key)
    expect((await call("GET", "/api/v1/channels/email", undefined, t.test_key)).status).toBe(404)
    const sandbox = await call("PUT", "/api/v1/channels/email", { from_address: "sandbox@grupo.example" }, t.test_key)
    expect(sandbox.body.data).toMatchObject({ mode: "sandbox", from_address: "sandbox@grupo.example" })
    expect((await call("GET", "/api/v1/channels/email", undefined, t.live_key)).body.data).toMatchObject({ mode: "live", from_address: "live@grupo.example" })
    expect((await call("GET", "/api/v1/channels/email", undefined, t.test_key)).body.data.from_address).toBe("sandbox@grupo.example")

    const liveId = phoneNumberId(), sandboxId = phoneNumberId()
    await call("PUT", "/api/v1/channels/whatsapp", { phone_number_id: liveId, access_token: secret("t"), app_secret: secret("s") }, t.live_key)
    await call("PUT", "/api/v1/channels/whatsapp", { phone_number_id: sandboxId, access_token: secret("t"), app_secret: secret("s") }, t.test_key)
    expect((await whatsAppByPhoneNumberId(sql, liveId, KEY))!.scope).toEqual({ tenant_id: t.tenant_id, sandbox: false })
    expect((await whatsAppByPhoneNumberId(sql, sandboxId, KEY))!.scope).toEqual({ tenant_id: t.tenant_id, sandbox: true })
    // Another account never sees either.
    expect((await call("GET", "/api/v1/channels/whatsapp", undefined, tenant.live_key)).status).toBe(404)
  })

  it("channels:read reads, channels:write writes, * does both; any other key gets 403 naming the scope", async () => {
    const t = await createTenant("scopes")
    const [reader, writer, other] = await Promise.all([
      createKey(t.tenant_id, ["channels:read"]), createKey(t.tenant_id, ["channels:write"]), createKey(t.tenant_id, ["guests:read", "webhooks:manage"])
    ])
    const body = { from_address: "scoped@grupo.example" }
    for (const [method, path, payload] of [
      ["GET", "/api/v1/channels/email", undefined], ["PUT", "/api/v1/channels/email", body],
      ["GET", "/api/v1/channels/whatsapp", undefined], ["PUT", "/api/v1/channels/whatsapp", { phone_number_id: "1" }],
      ["PUT", "/api/v1/channels/whatsapp/templates/a/es", { category: "utility", body_parameters: 0 }],
      ["DELETE", "/api/v1/channels/whatsapp/templates/a/es", undefined]
    ] as const) {
      const res = await call(method, path, payload, other.key)
      expect(res.status).toBe(403)
      expect(res.body.error.details.required_scope).toBe(method === "GET" ? "channels:read" : "channels:write")
    }
    expect((await call("PUT", "/api/v1/channels/email", body, reader.key)).status).toBe(403)
    expect((await call("PUT", "/api/v1/channels/email", body, writer.key)).status).toBe(200)
    expect((await call("GET", "/api/v1/channels/email", undefined, writer.key)).status).toBe(403)
    expect((await call("GET", "/api/v1/channels/email", undefined, reader.key)).body.data.from_address).toBe("scoped@grupo.example")
    expect((await call("GET", "/api/v1/channels/email", undefined, t.live_key)).status).toBe(200)
  })
})

describe("secrets", () => {
  // Last in the file: every answer and log line of the tests above.
  it("never appear in an answer or a log line", () => {
    expect(secrets.length).toBeGreaterThan(10)
    const log = ingress.stderr()
    expect(log).toContain("whatsapp channel configured")
    for (const s of secrets) {
      const hits = answers.filter((a) => JSON.stringify(a.body).includes(s))
      expect(hits, `answers showing ${s.slice(0, 6)}...`).toEqual([])
      expect(log.includes(s), `log showing ${s.slice(0, 6)}...`).toBe(false)
    }
  })
})
