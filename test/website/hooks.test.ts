import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { useEncryptionKey } from "../support/messaging.ts"
import { createTenant, request, startPlatform, testSql, type RunningPlatform, type TestTenant } from "../support/platform.ts"
import { createSource, hookPost, sign, type Source, unique } from "./support.ts"

// Webhook hooks: the token in the path, the signature over the raw bytes, mapping to the contract, test mode.
useEncryptionKey()
let platform: RunningPlatform
let tenant: TestTenant
let signed: Source
let mapped: Source
const sql = testSql()
const now = () => Math.floor(Date.now() / 1000)

const MAPPING = {
  event: { template: "booking.{{status}}", transform: "lower" },
  idempotency_key: { path: "id" },
  occurred_at: { path: "created", transform: "datetime" },
  "contact.email": { path: "guest.emails[0]", transform: "trim" },
  "contact.first_name": { path: "guest.name", transform: "upper" },
  "context.stage": { path: "step", map: { "Zahlung": "payment", "Zimmer": "room" } },
  "context.adults": { path: "pax", transform: "number" },
  "context.check_in": { path: "arrival", transform: "date" },
  "properties.vip": { path: "vip", transform: "boolean" },
  "properties.secret": { template: "{{constructor.name}}" }
}

beforeAll(async () => {
  platform = await startPlatform("website_hooks")
  tenant = await createTenant("hooks")
  signed = await createSource(platform.baseUrl, tenant.live_key, { signing: true })
  mapped = await createSource(platform.baseUrl, tenant.live_key, { mapping: MAPPING })
})
afterAll(async () => {
  await platform?.stop()
  await sql.end()
})

const event = () => ({ event: "lead.captured", contact: { email: `${unique("lead")}@hotel-guests.net` } })

describe("webhook hooks: signature", () => {
  it("GET answers readiness, and says a signature is required", async () => {
    const ready = await request(platform.baseUrl, "GET", `/api/v1/website-events/hooks/${signed.webhook_token}`)
    expect(ready.status).toBe(200)
    expect(ready.body).toMatchObject({ ready: true, signature_required: true })
    const unknown = await request(platform.baseUrl, "GET", `/api/v1/website-events/hooks/svc_wh_${"x".repeat(40)}`)
    expect(unknown.status).toBe(401)
    expect(unknown.body.error.code).toBe("unauthorized")
  })

  it("valid, missing, malformed, wrong secret, expired both ways", async () => {
    const raw = JSON.stringify(event())
    const t = now()
    const ok = await hookPost(platform.baseUrl, signed.webhook_token, undefined, { raw, signature: `t=${t},v1=${sign(signed.signing_secret!, t, raw)}` })
    expect(ok.status, JSON.stringify(ok.body)).toBe(202)
    const code = async (signature: string | undefined) => (await hookPost(platform.baseUrl, signed.webhook_token, undefined, { raw, ...(signature === undefined ? {} : { signature }) })).body.error?.code
    expect(await code(undefined)).toBe("signature_missing")
    expect(await code("t=abc,v1=zz")).toBe("signature_invalid")
    expect(await code(`t=${t},v1=${sign("whsec_wrong", t, raw)}`)).toBe("signature_invalid")
    expect(await code(`t=${t},v1=${sign(signed.signing_secret!, t, raw + " ")}`)).toBe("signature_invalid")
    expect(await code(`t=${t - 320},v1=${sign(signed.signing_secret!, t - 320, raw)}`)).toBe("signature_expired")
    expect(await code(`t=${t + 320},v1=${sign(signed.signing_secret!, t + 320, raw)}`)).toBe("signature_expired")
  })

  it("while a secret rotates, two v1 are sent and either secret verifies", async () => {
    const s = await createSource(platform.baseUrl, tenant.live_key, { signing: true })
    const rotated = await request(platform.baseUrl, "POST", `/api/v1/website-sources/${s.source_id}/rotate-signing-secret`, { key: tenant.live_key })
    expect(rotated.status).toBe(200)
    await new Promise((r) => setTimeout(r, 5_200)) // the ingress reuses a source lookup for 5 s
    const raw = JSON.stringify(event())
    const t = now()
    const both = `t=${t},v1=${sign(s.signing_secret!, t, raw)},v1=${sign(rotated.body.signing_secret, t, raw)}`
    expect((await hookPost(platform.baseUrl, s.webhook_token, undefined, { raw, signature: both })).status).toBe(202)
    const oldOnly = `t=${t},v1=${sign(s.signing_secret!, t, raw)}`
    expect((await hookPost(platform.baseUrl, s.webhook_token, undefined, { raw, signature: oldOnly })).status).toBe(202)
    const newOnly = `t=${t},v1=${sign(rotated.body.signing_secret, t, raw)}`
    expect((await hookPost(platform.baseUrl, s.webhook_token, undefined, { raw, signature: newOnly })).status).toBe(202)
  })
})

describe("webhook hooks: mapping", () => {
  it("maps a partner payload with every transform and a word map, into the strict contract", async () => {
    const payload = {
      id: unique("p"), status: "Started", created: new Date().toISOString(), step: "zahlung", pax: "2", arrival: "2027-05-01",
      vip: "yes", guest: { name: "ana", emails: [`  ${unique("ana")}@hotel-guests.net `] }
    }
    const res = await hookPost(platform.baseUrl, mapped.webhook_token, payload)
    expect(res.status, JSON.stringify(res.body)).toBe(202)
    const r = res.body.results[0]
    expect(r.status).toBe("accepted")
    expect(r.mapping_warnings).toEqual([{ target: "properties.secret", reason: "unsafe_path", detail: "{{constructor.name}}" }])
  })

  it("reports path_not_found, transform_failed and unsupported_value; the contract then judges what is left", async () => {
    const res = await hookPost(platform.baseUrl, mapped.webhook_token, [
      { status: "Started", step: "Kasse", pax: "two", arrival: "someday", vip: "perhaps", guest: { emails: [] } }
    ])
    expect(res.status).toBe(202) // a JSON array is a batch
    const r = res.body.results[0]
    const reasons = Object.fromEntries(r.mapping_warnings.map((w: any) => [w.target, w.reason]))
    expect(reasons).toMatchObject({
      idempotency_key: "path_not_found", "contact.email": "path_not_found", "context.stage": "unsupported_value",
      "context.adults": "transform_failed", "context.check_in": "transform_failed", "properties.vip": "transform_failed",
      "properties.secret": "unsafe_path"
    })
    expect(r).toMatchObject({ status: "accepted", warnings: [{ code: "no_contact" }] })
  })

  it("?test=1 validates and logs only", async () => {
    const res = await hookPost(platform.baseUrl, mapped.webhook_token, { status: "started", guest: { emails: [`${unique("t")}@hotel-guests.net`] } }, { test: true })
    expect(res.status).toBe(202)
    expect(res.body.results[0]).toMatchObject({ code: "test_event", event_id: null })
    const log = await request(platform.baseUrl, "GET", `/api/v1/website-sources/${mapped.source_id}/deliveries`, { key: tenant.live_key })
    expect(log.body.deliveries[0]).toMatchObject({ credential: "webhook", test: true, status: 202 })
  })

  it("a body over 256 KB is 413 body_too_large", async () => {
    const res = await hookPost(platform.baseUrl, mapped.webhook_token, { pad: "a".repeat(270_000) })
    expect(res.status).toBe(413)
    expect(res.body.error.code).toBe("body_too_large")
  })
})
