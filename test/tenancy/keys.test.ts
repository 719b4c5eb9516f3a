import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { setTimeout as sleep } from "node:timers/promises"
import { uniqueId } from "../support/fixtures.ts"
import { createKey, createTenant, request, startPlatform, testSql, type HttpResult, type RunningPlatform, type TestTenant } from "../support/platform.ts"
import { eventually } from "../support/webhook.ts"

// A key revoked elsewhere (another ingress, the CLI) keeps working here at most this long.
const CACHE_MS = 1_000
process.env.GEP_API_KEY_CACHE_MS = String(CACHE_MS)

let platform: RunningPlatform
let tenant: TestTenant
let other: TestTenant
/** keys:manage keys: of the live and of the sandbox mode; and one of another account. */
let admin: string
let sandboxAdmin: string
let otherAdmin: string
const sql = testSql()

beforeAll(async () => {
  platform = await startPlatform("keys")
  ;[tenant, other] = await Promise.all([createTenant("keys"), createTenant("keys-other")])
  ;[admin, sandboxAdmin, otherAdmin] = await Promise.all([
    createKey(tenant.tenant_id, ["keys:manage"]).then((k) => k.key),
    createKey(tenant.tenant_id, ["keys:manage"], { sandbox: true }).then((k) => k.key),
    createKey(other.tenant_id, ["keys:manage"]).then((k) => k.key)
  ])
}, 60_000)
afterAll(async () => {
  await platform?.stop()
  await sql.end()
})

const call = (method: string, path: string, key: string | undefined, body?: unknown) =>
  request(platform.baseUrl, method, path, { ...(key === undefined ? {} : { key }), ...(body === undefined ? {} : { body }) })
const created = async (res: Promise<HttpResult>) => {
  const r = await res
  expect(r.status, JSON.stringify(r.body)).toBe(201)
  return r.body.data
}
const newKey = (body: Record<string, unknown> = {}, key = admin) =>
  created(call("POST", "/api/v1/keys", key, { name: uniqueId("key"), scopes: ["guests:read"], mode: "live", ...body }))
const allKeys = async (key = admin) => {
  const res = await call("GET", "/api/v1/keys?limit=100", key)
  expect(res.status).toBe(200)
  return res.body.data.keys as Array<Record<string, unknown>>
}

describe("keys:manage", () => {
  it("is not granted by *: the tenant's default keys get 403 on every key and integration route", async () => {
    for (const key of [tenant.live_key, tenant.test_key]) {
      for (const [method, path, body] of [
        ["GET", "/api/v1/keys"], ["POST", "/api/v1/keys", { name: "x", scopes: ["*"], mode: "live" }],
        ["DELETE", "/api/v1/keys/00000000-0000-4000-8000-000000000000"],
        ["GET", "/api/v1/telephony/integrations"], ["POST", "/api/v1/telephony/integrations", { provider: "aircall" }]
      ] as const) {
        const res = await call(method, path, key, body)
        expect(res.status, `${method} ${path}`).toBe(403)
        expect(res.body.error.details).toEqual({ required_scope: "keys:manage" })
      }
    }
  })

  it("holds no other scope: a keys:manage key reads no guests", async () => {
    expect((await call("GET", "/api/v1/hotels", admin)).status).toBe(403)
  })
})

describe("POST /api/v1/keys", () => {
  it("creates a key of either mode, its secret shown once, that works at once with its scopes", async () => {
    const live = await newKey({ scopes: ["guests:read"], rate_limit_per_minute: 500 })
    expect(live).toMatchObject({
      key_id: expect.any(String), name: expect.any(String), scopes: ["guests:read"], mode: "live", rate_limit_per_minute: 500,
      created_at: expect.any(String), last_used_at: null, revoked: false, revoked_at: null
    })
    expect(live.key).toMatch(/^svckr_[0-9A-Za-z]{20,}$/)
    expect(live.key.startsWith(live.prefix)).toBe(true)
    const read = await call("GET", "/api/v1/hotels", live.key)
    expect(read.status).toBe(200)
    expect(read.headers.get("x-ratelimit-limit")).toBe("500")
    expect((await call("POST", "/api/v1/hotels", live.key, { code: "X", name: "X", timezone: "UTC" })).status).toBe(403)
    const sandbox = await newKey({ mode: "sandbox", scopes: ["*"] }, sandboxAdmin)
    expect(sandbox).toMatchObject({ mode: "sandbox", scopes: ["*"], rate_limit_per_minute: null })
    expect(sandbox.key).toMatch(/^svckr_test_/)
    expect((await call("GET", "/api/v1/hotels", sandbox.key)).status).toBe(200)
  })

  it("may grant keys:manage itself: keys:manage is the administrator's scope", async () => {
    const deputy = await newKey({ scopes: ["keys:manage", "*"] })
    expect((await call("GET", "/api/v1/keys", deputy.key)).status).toBe(200)
    expect((await call("GET", "/api/v1/hotels", deputy.key)).status).toBe(200)
  })

  it("refuses unknown scopes naming scopes[i], and every other bad field naming it; nothing is stored", async () => {
    const before = (await sql`SELECT count(*)::int AS n FROM api_keys WHERE tenant_id = ${tenant.tenant_id}`)[0]!.n
    const cases: Array<[Record<string, unknown>, Array<string>]> = [
      [{ scopes: ["guests:read", "guests:delete"] }, ["scopes[1]"]],
      [{ scopes: [] }, ["scopes"]],
      [{ scopes: "guests:read" }, ["scopes"]],
      [{ mode: "test" }, ["mode"]],
      [{ name: "" }, ["name"]],
      [{ name: "x".repeat(101) }, ["name"]],
      [{ rate_limit_per_minute: 0 }, ["rate_limit_per_minute"]],
      [{ rate_limit_per_minute: 1.5 }, ["rate_limit_per_minute"]]
    ]
    for (const [override, fields] of cases) {
      const res = await call("POST", "/api/v1/keys", admin, { name: "k", scopes: ["guests:read"], mode: "live", ...override })
      expect(res.status, JSON.stringify(override)).toBe(400)
      expect(Object.keys(res.body.error.details), JSON.stringify(res.body)).toEqual(fields)
    }
    const missing = await call("POST", "/api/v1/keys", admin, {})
    expect(Object.keys(missing.body.error.details).sort()).toEqual(["mode", "name", "scopes"])
    expect((await sql`SELECT count(*)::int AS n FROM api_keys WHERE tenant_id = ${tenant.tenant_id}`)[0]!.n).toBe(before)
  })
})

describe("GET /api/v1/keys", () => {
  it("lists the account's keys of both modes to a key of either mode, never a secret or a hash", async () => {
    const made = await newKey()
    for (const key of [admin, sandboxAdmin]) {
      const keys = await allKeys(key)
      const ids = keys.map((k) => k.key_id)
      expect(ids).toContain(made.key_id)
      expect(new Set(keys.map((k) => k.mode))).toEqual(new Set(["live", "sandbox"]))
      expect(JSON.stringify(keys)).not.toContain(made.key)
      for (const k of keys) {
        expect(Object.keys(k).sort()).toEqual(
          ["created_at", "key_id", "last_used_at", "mode", "name", "prefix", "rate_limit_per_minute", "revoked", "revoked_at", "scopes"]
        )
      }
    }
    // The default keys were made before keys had names.
    expect((await allKeys()).filter((k) => k.name === null && k.scopes?.toString() === "*").length).toBe(2)
  })

  it("pages newest first with next_cursor, and refuses a bad cursor or limit naming it", async () => {
    const fresh = await createTenant("keys-page")
    const freshAdmin = await createKey(fresh.tenant_id, ["keys:manage"])
    const ids: Array<string> = []
    let cursor: string | null = null
    do {
      const res: HttpResult = await call("GET", `/api/v1/keys?limit=2${cursor ? `&cursor=${cursor}` : ""}`, freshAdmin.key)
      ids.push(...res.body.data.keys.map((k: { key_id: string }) => k.key_id))
      cursor = res.body.data.next_cursor
    } while (cursor !== null)
    expect(ids.length).toBe(3)
    expect(ids[0]).toBe(freshAdmin.key_id)
    for (const [query, field] of [["limit=0", "limit"], ["cursor=%E2%9C%93", "cursor"]]) {
      const res = await call("GET", `/api/v1/keys?${query}`, admin)
      expect(res.status).toBe(400)
      expect(Object.keys(res.body.error.details)).toEqual([field])
    }
  })

  it("shows no other account's keys", async () => {
    const mine = (await allKeys()).map((k) => k.key_id)
    const theirs = (await allKeys(otherAdmin)).map((k) => k.key_id)
    expect(mine.filter((id) => theirs.includes(id))).toEqual([])
  })

  it("records last_used_at at most once a minute per key, not per request", async () => {
    const made = await newKey()
    expect((await call("GET", "/api/v1/hotels", made.key)).status).toBe(200)
    const first = await eventually("last_used_at written", async () =>
      (await sql`SELECT last_used_at FROM api_keys WHERE id = ${made.key_id} AND last_used_at IS NOT NULL`)[0]?.last_used_at as Date | undefined)
    for (let i = 0; i < 3; i++) expect((await call("GET", "/api/v1/hotels", made.key)).status).toBe(200)
    await sleep(200)
    const [row] = await sql`SELECT last_used_at FROM api_keys WHERE id = ${made.key_id}`
    expect((row!.last_used_at as Date).getTime()).toBe(first.getTime())
    const listed = (await allKeys()).find((k) => k.key_id === made.key_id)!
    expect(Date.parse(listed.last_used_at as string)).toBeLessThanOrEqual(first.getTime())
    expect(first.getTime() - Date.parse(listed.last_used_at as string)).toBeLessThan(60_000)
  })
})

describe("DELETE /api/v1/keys/{key_id}", () => {
  it("revokes a key: refused at once by this ingress, listed as revoked; again is the same answer", async () => {
    const made = await newKey()
    expect((await call("GET", "/api/v1/hotels", made.key)).status).toBe(200)
    const res = await call("DELETE", `/api/v1/keys/${made.key_id}`, admin)
    expect(res.status).toBe(200)
    expect(res.body.data).toMatchObject({ key_id: made.key_id, revoked: true, revoked_at: expect.any(String) })
    expect((await call("GET", "/api/v1/hotels", made.key)).status).toBe(401)
    const again = await call("DELETE", `/api/v1/keys/${made.key_id}`, sandboxAdmin)
    expect(again.body.data.revoked_at).toBe(res.body.data.revoked_at)
    expect((await allKeys()).find((k) => k.key_id === made.key_id)).toMatchObject({ revoked: true })
  })

  it("a key revoked elsewhere (the CLI, another ingress) is refused once the cache time has passed", async () => {
    const made = await newKey()
    expect((await call("GET", "/api/v1/hotels", made.key)).status).toBe(200)
    await sql`UPDATE api_keys SET revoked_at = now() WHERE id = ${made.key_id}`
    await sleep(CACHE_MS + 100)
    expect((await call("GET", "/api/v1/hotels", made.key)).status).toBe(401)
  })

  it("answers a malformed id 400 naming key_id, another account's key 404 (and leaves it working)", async () => {
    const malformed = await call("DELETE", "/api/v1/keys/nope", admin)
    expect(malformed.status).toBe(400)
    expect(Object.keys(malformed.body.error.details)).toEqual(["key_id"])
    const theirs = await newKey({}, otherAdmin)
    expect((await call("DELETE", `/api/v1/keys/${theirs.key_id}`, admin)).status).toBe(404)
    expect((await call("DELETE", "/api/v1/keys/00000000-0000-4000-8000-000000000000", admin)).status).toBe(404)
    expect((await call("GET", "/api/v1/hotels", theirs.key)).status).toBe(200)
  })
})

describe("telephony integrations", () => {
  const cti = (token: string) => call("POST", "/api/webhooks/cti", token, { event_type: "call_missed", call_id: uniqueId("call") })

  it("creates a CTI webhook token, shown once, that the CTI webhook accepts; lists it without the token; revokes it", async () => {
    const made = await created(call("POST", "/api/v1/telephony/integrations", admin, { provider: "aircall" }))
    expect(made).toMatchObject({ integration_id: expect.any(String), provider: "aircall", revoked: false, revoked_at: null })
    expect(made.token).toMatch(/^svccti_/)
    expect((await cti(made.token)).status).toBe(201)
    const list = await call("GET", "/api/v1/telephony/integrations", sandboxAdmin)
    expect(list.status).toBe(200)
    expect(list.body.data.integrations.map((i: { integration_id: string }) => i.integration_id)).toContain(made.integration_id)
    expect(JSON.stringify(list.body)).not.toContain(made.token)
    expect(list.body.data.next_cursor).toBeNull()
    expect((await call("GET", "/api/v1/telephony/integrations", otherAdmin)).body.data.integrations).toEqual([])
    expect((await call("DELETE", `/api/v1/telephony/integrations/${made.integration_id}`, otherAdmin)).status).toBe(404)
    const revoked = await call("DELETE", `/api/v1/telephony/integrations/${made.integration_id}`, admin)
    expect(revoked.status).toBe(200)
    expect(revoked.body.data).toMatchObject({ revoked: true })
    expect((await cti(made.token)).status).toBe(401)
  })

  it("refuses a bad provider or id with 400 naming it", async () => {
    for (const provider of ["Aircall", "", "a b", "x".repeat(51)]) {
      const res = await call("POST", "/api/v1/telephony/integrations", admin, { provider })
      expect(res.status, provider).toBe(400)
      expect(Object.keys(res.body.error.details)).toEqual(["provider"])
    }
    const malformed = await call("DELETE", "/api/v1/telephony/integrations/1", admin)
    expect(malformed.status).toBe(400)
    expect(Object.keys(malformed.body.error.details)).toEqual(["integration_id"])
  })
})
