import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { createKey, createTenant, post, request, startPlatform, testSql, type RunningPlatform, type TestTenant } from "../support/platform.ts"

// The loopback test switch is off here, as in production.
delete process.env.GEP_WEBHOOKS_ALLOW_LOOPBACK

let platform: RunningPlatform
let tenant: TestTenant
const sql = testSql()
// A public address: accepted at creation. Ingress only in this file: no deliverer runs, nothing is ever sent to it.
const PUBLIC_URL = "https://93.184.215.14/hooks/gep?tag=1"

beforeAll(async () => {
  platform = await startPlatform("whapi", { role: "ingress" })
  tenant = await createTenant("whapi")
})
afterAll(async () => {
  await platform?.stop()
  await sql.end()
})

const create = (body: unknown, key = tenant.live_key) => post(platform.baseUrl, "/api/v1/webhooks", key, body)
const valid = (overrides: Record<string, unknown> = {}) => ({ url: PUBLIC_URL, event_types: ["contact.created"], ...overrides })
const call = (method: string, path: string, body?: unknown, key = tenant.live_key) =>
  request(platform.baseUrl, method, path, body === undefined ? { key } : { key, body })

describe("webhook subscriptions API", () => {
  it("creates with defaults, shows the secret once, and never again", async () => {
    const res = await create(valid({ description: "CRM", headers: { "X-Partner-Token": "t-1" } }))
    expect(res.status).toBe(201)
    const sub = res.body.data
    expect(sub).toMatchObject({
      url: PUBLIC_URL, event_types: ["contact.created"], headers: { "X-Partner-Token": "t-1" }, enabled: true,
      disabled_reason: null, description: "CRM", retry_policy: { max_attempts: 10, initial_backoff_seconds: 30, max_backoff_seconds: 7200 },
      previous_secret_expires_at: null
    })
    expect(sub.secret).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/)
    const answers = [
      await call("GET", `/api/v1/webhooks/${sub.id}`),
      await call("GET", "/api/v1/webhooks"),
      await call("PATCH", `/api/v1/webhooks/${sub.id}`, { description: "CRM 2" }),
      await call("GET", `/api/v1/webhooks/${sub.id}/deliveries`)
    ]
    for (const a of answers) {
      expect(a.status).toBe(200)
      expect(JSON.stringify(a.body)).not.toContain(sub.secret)
      expect(JSON.stringify(a.body)).not.toMatch(/"secret"/)
    }
    expect(answers[1]!.body.data.webhooks.map((s: { id: string }) => s.id)).toContain(sub.id)
    expect(answers[1]!.body.data.next_cursor).toBeNull()
    expect(answers[2]!.body.data.description).toBe("CRM 2")
    expect(answers[3]!.body).toEqual({ success: true, data: { deliveries: [], next_cursor: null }, has_more: false })
    const [row] = await sql`SELECT secret_encrypted FROM webhook_subscriptions WHERE id = ${sub.id}`
    expect((row!.secret_encrypted as Buffer).includes(Buffer.from(sub.secret.slice(6)))).toBe(false)
  })

  it("updates, re-enables, deletes; unknown ids answer 404 in the core shape", async () => {
    const sub = (await create(valid())).body.data
    const patched = await call("PATCH", `/api/v1/webhooks/${sub.id}`, { enabled: false, event_types: ["*"], retry_policy: { max_attempts: 3 } })
    expect(patched.body.data).toMatchObject({ enabled: false, event_types: ["*"], retry_policy: { max_attempts: 3, initial_backoff_seconds: 30 } })
    await sql`UPDATE webhook_subscriptions SET disabled_reason = 'gone' WHERE id = ${sub.id}`
    const again = await call("PATCH", `/api/v1/webhooks/${sub.id}`, { enabled: true })
    expect(again.body.data).toMatchObject({ enabled: true, disabled_reason: null })
    expect((await call("DELETE", `/api/v1/webhooks/${sub.id}`)).body).toEqual({ success: true, data: { id: sub.id, deleted: true } })
    for (const [method, path] of [["GET", sub.id], ["DELETE", sub.id], ["PATCH", sub.id], ["POST", `${sub.id}/rotate-secret`], ["GET", "not-a-uuid"]] as const) {
      const res = await call(method, `/api/v1/webhooks/${path}`, method === "PATCH" ? { enabled: true } : undefined)
      expect(res.status).toBe(404)
      expect(res.body).toMatchObject({ success: false, error: { code: "NOT_FOUND", details: { id: ["not found"] } } })
    }
  })

  it("needs the webhooks:manage scope and keeps tenants and sandbox apart", async () => {
    const sub = (await create(valid())).body.data
    const narrow = await createKey(tenant.tenant_id, ["reservations:write"])
    const denied = await call("GET", "/api/v1/webhooks", undefined, narrow.key)
    expect(denied.status).toBe(403)
    expect(denied.body.error.details.required_scope).toBe("webhooks:manage")
    const manager = await createKey(tenant.tenant_id, ["webhooks:manage"])
    expect((await call("GET", `/api/v1/webhooks/${sub.id}`, undefined, manager.key)).status).toBe(200)
    expect((await call("GET", `/api/v1/webhooks/${sub.id}`, undefined, tenant.test_key)).status).toBe(404)
    const other = await createTenant("whapi-other")
    expect((await call("GET", `/api/v1/webhooks/${sub.id}`, undefined, other.live_key)).status).toBe(404)
    expect((await call("DELETE", `/api/v1/webhooks/${sub.id}`, undefined, other.live_key)).status).toBe(404)
    const sandbox = (await create(valid(), tenant.test_key)).body.data
    const [row] = await sql`SELECT sandbox FROM webhook_subscriptions WHERE id = ${sandbox.id}`
    expect(row!.sandbox).toBe(true)
    const liveList = (await call("GET", "/api/v1/webhooks")).body.data.webhooks.map((s: { id: string }) => s.id)
    expect(liveList).not.toContain(sandbox.id)
  })

  it("rotates the secret: a new one shown once, the previous one valid for 24 h", async () => {
    const sub = (await create(valid())).body.data
    const rotated = await call("POST", `/api/v1/webhooks/${sub.id}/rotate-secret`)
    expect(rotated.status).toBe(200)
    expect(rotated.body.data.secret).toMatch(/^whsec_/)
    expect(rotated.body.data.secret).not.toBe(sub.secret)
    const read = (await call("GET", `/api/v1/webhooks/${sub.id}`)).body.data
    expect(read.previous_secret_expires_at).toBe(rotated.body.data.previous_secret_expires_at)
    expect(JSON.stringify(read)).not.toContain(rotated.body.data.secret)
  })

  it("pages the delivery log newest first in the one list shape, with an opaque cursor", async () => {
    const sub = (await create(valid())).body.data
    // Two attempts in the same microsecond: the keyset (attempted_at, id) still neither skips nor repeats one.
    for (let i = 1; i <= 5; i++) {
      await sql`INSERT INTO webhook_deliveries (id, subscription_id, tenant_id, sandbox, event_id, event_type, attempt, outcome, duration_ms, attempted_at)
        VALUES (gen_random_uuid(), ${sub.id}, ${tenant.tenant_id}, false, ${`e${i}`}, 'contact.created', 1, 'succeeded', ${i},
          timestamptz '2026-11-20T10:00:00Z' + make_interval(secs => ${Math.min(i, 4)}))`
    }
    const ids = (page: any) => page.data.deliveries.map((d: { event_id: string }) => d.event_id)
    const first = (await call("GET", `/api/v1/webhooks/${sub.id}/deliveries?limit=2`)).body
    expect(Object.keys(first.data)).toEqual(["deliveries", "next_cursor"])
    expect(first.data.deliveries[0]).toMatchObject({ event_id: expect.any(String), trigger: "event" })
    expect(first.has_more).toBe(true)
    const second = (await call("GET", `/api/v1/webhooks/${sub.id}/deliveries?limit=2&cursor=${first.data.next_cursor}`)).body
    const third = (await call("GET", `/api/v1/webhooks/${sub.id}/deliveries?limit=2&cursor=${second.data.next_cursor}`)).body
    expect([...ids(first), ...ids(second), ...ids(third)].sort()).toEqual(["e1", "e2", "e3", "e4", "e5"])
    expect(ids(third)).toEqual(["e1"])
    expect([third.has_more, third.data.next_cursor]).toEqual([false, null])
    for (const [q, field] of [["limit=0", "limit"], ["limit=101", "limit"], ["limit=x", "limit"], ["cursor=bogus", "cursor"]]) {
      const bad = await call("GET", `/api/v1/webhooks/${sub.id}/deliveries?${q}`)
      expect(bad.status).toBe(400)
      expect(bad.body.error.code).toBe("VALIDATION_ERROR")
      expect(bad.body.error.details).toHaveProperty([field!])
    }
  })
})

describe("bad input on webhook subscriptions", () => {
  const blocked = [
    "https://127.0.0.1/hook", "https://10.0.0.1/hook", "https://169.254.169.254/latest/meta-data/", "https://[::1]/hook",
    "https://[::ffff:10.0.0.1]/hook", "https://localhost:8443/hook", "https://[fd00:ec2::254]/", "https://100.100.100.200/",
    "https://0.0.0.0/", "https://2130706433/", "https://192.168.1.10/", "https://172.16.5.4/", "https://100.64.0.1/",
    "https://[fe80::1]/", "https://224.0.0.1/", "https://[::ffff:127.0.0.1]/"
  ]
  for (const url of blocked) {
    it(`refuses ${url} with 422 URL_NOT_ALLOWED while the test switch is off`, async () => {
      const res = await create(valid({ url }))
      expect(res.status).toBe(422)
      expect(res.body).toMatchObject({ success: false, error: { code: "URL_NOT_ALLOWED", details: { url: [expect.stringContaining("resolves to")] } } })
    })
  }

  it("names the development switch (GEP_WEBHOOKS_ALLOW_LOOPBACK=1) in the refusals of a loopback receiver, codes and details unchanged", async () => {
    const https = await create(valid({ url: "https://127.0.0.1:9099/hooks" }))
    expect(https.status).toBe(422)
    expect(https.body.error.code).toBe("URL_NOT_ALLOWED")
    expect(https.body.error.message).toContain("GEP_WEBHOOKS_ALLOW_LOOPBACK=1")
    expect(https.body.error.details.url).toEqual([expect.not.stringContaining("GEP_WEBHOOKS_ALLOW_LOOPBACK")])
    const http = await create(valid({ url: "http://127.0.0.1:9099/hooks" }))
    expect(http.status).toBe(400)
    expect(http.body.error).toMatchObject({ code: "VALIDATION_ERROR", details: { url: ["must use https"] } })
    expect(http.body.error.message).toContain("GEP_WEBHOOKS_ALLOW_LOOPBACK=1")
    // A private address is not what the switch is for: no hint there.
    const other = await create(valid({ url: "https://10.0.0.1/hook" }))
    expect(other.body.error.message).not.toContain("GEP_WEBHOOKS_ALLOW_LOOPBACK")
  })

  const invalid: Array<[string, unknown, ReadonlyArray<string>]> = [
    ["a plain http URL", valid({ url: "http://93.184.215.14/hook" }), ["url"]],
    ["a malformed URL", valid({ url: "not a url" }), ["url"]],
    ["another scheme", valid({ url: "ftp://93.184.215.14/" }), ["url"]],
    ["credentials in the URL", valid({ url: "https://user:pw@93.184.215.14/" }), ["url"]],
    ["an unknown event type", valid({ event_types: ["contact.created", "booking.exploded"] }), ["event_types[1]"]],
    ["no event types", valid({ event_types: [] }), ["event_types"]],
    ["no url", { event_types: ["contact.created"] }, ["url"]],
    ["reserved custom headers", valid({ headers: { "X-Webhook-Signature": "x", "x-webhook-timestamp": "y", Host: "h", "Content-Type": "t", Authorization: "Bearer z" } }),
      ["headers.X-Webhook-Signature", "headers.x-webhook-timestamp", "headers.Host", "headers.Content-Type", "headers.Authorization"]],
    ["a header value with a line break", valid({ headers: { "X-Ok": "a\r\nX-Injected: 1" } }), ["headers.X-Ok"]],
    ["a retry policy out of range", valid({ retry_policy: { max_attempts: 0, initial_backoff_seconds: 1.5, max_backoff_seconds: 999_999 } }),
      ["retry_policy.max_attempts", "retry_policy.initial_backoff_seconds", "retry_policy.max_backoff_seconds"]],
    ["a cap below the first wait", valid({ retry_policy: { initial_backoff_seconds: 600, max_backoff_seconds: 60 } }), ["retry_policy.max_backoff_seconds"]]
  ]
  for (const [name, body, fields] of invalid) {
    it(`refuses ${name} with 400 VALIDATION_ERROR naming ${fields.join(", ")}`, async () => {
      const before = await sql`SELECT count(*)::int AS n FROM webhook_subscriptions WHERE tenant_id = ${tenant.tenant_id}`
      const res = await create(body)
      expect(res.status, JSON.stringify(res.body)).toBe(400)
      expect(res.body).toMatchObject({ success: false, error: { code: "VALIDATION_ERROR", message: expect.any(String) } })
      for (const f of fields) expect(Object.keys(res.body.error.details)).toContain(f)
      const after = await sql`SELECT count(*)::int AS n FROM webhook_subscriptions WHERE tenant_id = ${tenant.tenant_id}`
      expect(after[0]!.n).toBe(before[0]!.n)
    })
  }

  it("checks a new URL on update too", async () => {
    const sub = (await create(valid())).body.data
    const res = await call("PATCH", `/api/v1/webhooks/${sub.id}`, { url: "https://169.254.169.254/" })
    expect(res.status).toBe(422)
    expect((await call("GET", `/api/v1/webhooks/${sub.id}`)).body.data.url).toBe(PUBLIC_URL)
  })
})
