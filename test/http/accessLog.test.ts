import { randomBytes } from "node:crypto"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { accessLogShare } from "../../core/observability/accessLog.ts"
import { displayPrefix } from "../../src/auth/keys.ts"
import { createCtiIntegration, createKey, createTenant, type HttpResult, request, startPlatform, type RunningPlatform, type TestTenant } from "../support/platform.ts"

// The platform runs in this process: every line it writes on stderr is captured here, access log and the rest.
const written: Array<string> = []
const originalWrite = process.stderr.write.bind(process.stderr)
let platform: RunningPlatform
let tenant: TestTenant
/** Every credential this file creates or sends: none may appear in any line. */
const secrets: Array<string> = []

beforeAll(async () => {
  process.stderr.write = ((chunk: string | Uint8Array, ...rest: Array<any>) => {
    written.push(typeof chunk === "string" ? chunk : Buffer.from(chunk).toString("utf8"))
    return originalWrite(chunk as any, ...rest)
  }) as typeof process.stderr.write
  process.env.GEP_WEBHOOKS_ALLOW_LOOPBACK = "1"
  platform = await startPlatform("accesslog")
  tenant = await createTenant("accesslog")
}, 60_000)
afterAll(async () => {
  process.stderr.write = originalWrite
  delete process.env.GEP_WEBHOOKS_ALLOW_LOOPBACK
  await platform?.stop()
})

const accessLines = () => written.join("").split("\n").filter((l) => l.includes('"msg":"request"')).map((l) => JSON.parse(l) as Record<string, unknown>)
const lineOf = async (res: HttpResult) => {
  const id = res.headers.get("x-request-id")!
  for (let i = 0; i < 40; i++) {
    const found = accessLines().filter((l) => l.request_id === id)
    if (found.length > 0) return found
    await new Promise((r) => setTimeout(r, 25))
  }
  return []
}

describe("the access log", () => {
  it("writes one line per answer: route template, status, duration, bytes, tenant and key prefix, never a credential", async () => {
    const admin = (await createKey(tenant.tenant_id, ["*", "keys:manage"])).key
    const cti = (await createCtiIntegration(tenant.tenant_id, "aircall")).token
    secrets.push(tenant.live_key, tenant.test_key, admin, cti)
    const sent: Array<{ res: HttpResult; route: string; tenant: boolean; prefix?: string }> = []
    /** A request and what its line must say: the tenant when a credential was accepted, the key's prefix when it was a key. */
    const call = async (method: string, path: string, route: string, options: Parameters<typeof request>[3] = {}, prefix?: string, credential = options.key) => {
      const res = await request(platform.baseUrl, method, path, options)
      sent.push({ res, route, tenant: credential !== undefined && res.status !== 401, ...(prefix === undefined ? {} : { prefix }) })
      return res
    }
    // Credentials minted through the API: a key, a webhook secret of the partner's own and ours, a website source's keys.
    const minted = await call("POST", "/api/v1/keys", "/api/v1/keys", { key: admin, body: { name: "access-log", scopes: ["guests:read"], mode: "live" } }, displayPrefix(admin))
    expect(minted.status, JSON.stringify(minted.body)).toBe(201)
    const partnerSecret = `whsec_${randomBytes(32).toString("base64")}`
    const hook = await call("POST", "/api/v1/webhooks", "/api/v1/webhooks", { key: tenant.live_key, body: { url: "https://127.0.0.1:1/x", event_types: ["contact.created"], secret: partnerSecret } }, displayPrefix(tenant.live_key))
    expect(hook.status, JSON.stringify(hook.body)).toBe(201)
    const source = await call("POST", "/api/v1/website-sources", "/api/v1/website-sources", { key: tenant.live_key, body: { name: "Access log site", allowed_origins: ["https://access.hotel.example"] } }, displayPrefix(tenant.live_key))
    expect(source.status, JSON.stringify(source.body)).toBe(201)
    secrets.push(minted.body.data.key, partnerSecret, hook.body.data.secret, source.body.server_key, source.body.webhook_token, source.body.browser_key)
    // Credentials in a path, a query and a header; a key we do not know; a telephony token.
    await call("POST", `/api/v1/website-events/hooks/${source.body.webhook_token}`, "/api/v1/website-events/hooks/:token", { body: { event: "cart.viewed" } }, undefined, source.body.webhook_token)
    await call("GET", `/api/v1/contacts?email=ana@example.com&token=${source.body.server_key}`, "/api/v1/contacts", { key: minted.body.data.key }, displayPrefix(minted.body.data.key))
    const unknown = `svckr_${"Z".repeat(40)}`
    secrets.push(unknown)
    await call("GET", "/api/v1/contacts", "/api/v1/contacts", { key: unknown })
    await call("POST", "/api/webhooks/cti", "/api/webhooks/cti", { key: cti, body: { event_type: "call_ringing", call_id: "acc-1", from_number: "+34600000001", to_number: "+34910000000" } })
    await call("GET", "/nowhere/at/all", "/nowhere/at/all")

    for (const { res, route, tenant: withTenant, prefix } of sent) {
      const lines = await lineOf(res)
      expect(lines.length, `${route} ${res.status}`).toBe(1)
      const line = lines[0]!
      expect(line).toMatchObject({ level: "info", method: expect.any(String), route, status: res.status })
      expect(line.duration_ms).toBeGreaterThanOrEqual(0)
      expect(Object.keys(line).sort()).toEqual(["bytes", "duration_ms", "key_prefix", "level", "method", "msg", "request_id", "route", "status", "tenant_id", "ts"])
      expect(line.tenant_id).toBe(withTenant ? tenant.tenant_id : null)
      expect(line.key_prefix).toBe(prefix ?? null)
      // The bytes of the body the client was sent (taken from the body's length, never by encoding it again).
      const length = res.headers.get("content-length")
      if (length !== null) expect(line.bytes, `${route} bytes`).toBe(Number(length))
    }
    // Nothing the run created or sent as a credential is in any line the platform wrote.
    const all = written.join("")
    expect(all.length).toBeGreaterThan(0)
    for (const secret of secrets.filter((s) => typeof s === "string" && s.length > 0)) expect(all.includes(secret), "a credential was logged").toBe(false)
  })

  it("a request whose client went away before the answer is logged 499, not as a 500 and an unhandled failure", async () => {
    // An ingress with no worker behind it: a write waits for an answer that never comes, and the client gives up.
    const ingress = await startPlatform("accesslog_closed", { role: "ingress" })
    try {
      const sentAt = written.length
      const aborted = await fetch(`${ingress.baseUrl}/api/v1/reservations`, {
        method: "POST", signal: AbortSignal.timeout(300),
        headers: { authorization: `Bearer ${tenant.live_key}`, "content-type": "application/json" },
        body: JSON.stringify({ reservation_id: "gone-1", hotel_code: tenant.hotel_code, check_in: "2026-12-01", check_out: "2026-12-02", guests: [{ first_name: "Gone", email: "gone@gmail.com" }] })
      }).then(() => "answered", () => "aborted")
      expect(aborted).toBe("aborted")
      let lines: Array<Record<string, unknown>> = []
      for (let i = 0; i < 80 && lines.length === 0; i++) {
        await new Promise((r) => setTimeout(r, 25))
        lines = accessLines().filter((l) => l.route === "/api/v1/reservations" && l.tenant_id === tenant.tenant_id && written.slice(sentAt).join("").includes(String(l.request_id)))
      }
      expect(lines.map((l) => l.status)).toEqual([499])
      expect(written.slice(sentAt).join("")).not.toContain("unhandled request failure")
    } finally {
      await ingress.stop()
    }
  })

  it("GEP_ACCESS_LOG: on by default, off, or the share of answers written", () => {
    expect([undefined, "", "on", "off", "0.25", "1", "2", "x"].map(accessLogShare)).toEqual([1, 1, 1, 0, 0.25, 1, 1, 1])
  })
})
