import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { e164 as e164Of, reservation, uniqueId } from "../support/fixtures.ts"
import { eventually } from "../support/webhook.ts"
import { createKey, createTenant, post, request, startPlatform, testSql, type RunningPlatform, type TestTenant } from "../support/platform.ts"

// The privacy requests API on the real platform: the request's shape, its checks, suppression held from the 202 (and
// kept as hashes only), its lifting, the reference's idempotency, paging, scopes and tenant isolation.

let platform: RunningPlatform
let tenant: TestTenant
let other: TestTenant
let key: string
const sql = testSql()

beforeAll(async () => {
  platform = await startPlatform("privacy-api")
  ;[tenant, other] = await Promise.all([createTenant("privacy"), createTenant("privacy-other")])
  key = (await createKey(tenant.tenant_id, ["*", "privacy:write"])).key
}, 60_000)
afterAll(async () => {
  await platform?.stop()
  await sql.end()
})

const ask = (body: unknown, k = key) => post(platform.baseUrl, "/api/v1/privacy/requests", k, body)
const read = (id: string, k = key) => request(platform.baseUrl, "GET", `/api/v1/privacy/requests/${id}`, { key: k })
const address = (label: string) => `${uniqueId(label).toLowerCase()}@gmail.com`

describe("privacy requests", () => {
  it("suppresses at once, keeps only keyed hashes, and lifts it", async () => {
    const email = address("sup")
    const res = await ask({ type: "suppress", subject: { email: `  ${email.toUpperCase()} ` } })
    expect(res.status, JSON.stringify(res.body)).toBe(202)
    expect(res.body.data.status).toBe("completed")
    const id = res.body.data.request_id as string
    const view = (await read(id)).body.data
    expect(view).toMatchObject({ request_id: id, type: "suppress", subject_kind: "email", status: "completed", download_url: null,
      results: [{ store: "privacy_suppressions", action: "suppressed", count: 1 }] })
    expect(JSON.stringify(view)).not.toContain(email)
    const rows = await sql`SELECT id_hash, kind FROM privacy_suppressions WHERE tenant_id = ${tenant.tenant_id}`
    expect(rows).toHaveLength(1)
    expect(rows[0]!.id_hash.toString("utf8")).not.toContain(email)
    const stored = await sql`SELECT subject_sealed FROM privacy_requests WHERE id = ${id}`
    expect(stored[0]!.subject_sealed).toBeNull()
    // The same person again: nothing new to suppress.
    expect((await read((await ask({ type: "suppress", subject: { email } })).body.data.request_id)).body.data.results[0].count).toBe(0)
    const lifted = await ask({ type: "unsuppress", subject: { email } })
    expect(lifted.status).toBe(202)
    expect((await read(lifted.body.data.request_id)).body.data.results).toEqual([{ store: "privacy_suppressions", action: "unsuppressed", count: 1 }])
    expect(await sql`SELECT 1 FROM privacy_suppressions WHERE tenant_id = ${tenant.tenant_id}`).toHaveLength(0)
  })

  it("resolves a phone in any accepted format to the contact, and suppresses its email too", async () => {
    const e164 = e164Of(Math.floor(Math.random() * 80_000_000))
    const email = address("res")
    const booked = await post(platform.baseUrl, "/api/v1/reservations", tenant.live_key,
      reservation({ hotel_id: tenant.hotel_id }, { guests: [{ first_name: "Ana", last_name: "Privacy", phone: e164, email }] }))
    expect(booked.status, JSON.stringify(booked.body)).toBeLessThan(300)
    const contact = await eventually("the guest's contact", async () =>
      (await sql`SELECT id::text AS id FROM contacts WHERE tenant_id = ${tenant.tenant_id} AND phone = ${e164}`)[0])
    const spaced = `00${e164.slice(1, 3)} ${e164.slice(3)}`
    const res = await ask({ type: "suppress", subject: { phone: spaced } })
    expect(res.status, JSON.stringify(res.body)).toBe(202)
    const view = (await read(res.body.data.request_id)).body.data
    expect(view.contact_ids).toEqual([contact!.id])
    expect(view.results[0].count).toBe(2)
    await ask({ type: "unsuppress", subject: { contact_id: contact!.id } })
    expect(await sql`SELECT 1 FROM privacy_suppressions WHERE tenant_id = ${tenant.tenant_id}`).toHaveLength(0)
  })

  it("answers a reference used again with the same request, and 409 when it names another", async () => {
    const email = address("ref")
    const reference = uniqueId("ticket")
    const first = await ask({ type: "suppress", subject: { email }, reference })
    const again = await ask({ type: "suppress", subject: { email }, reference })
    expect(again.status).toBe(202)
    expect(again.body.data.request_id).toBe(first.body.data.request_id)
    const other = await ask({ type: "suppress", subject: { email: address("other") }, reference })
    expect(other.status).toBe(409)
    expect(other.body.error.code).toBe("REFERENCE_IN_USE")
    await ask({ type: "unsuppress", subject: { email } })
  })

  it("refuses a subject it cannot act on with 422 naming the field", async () => {
    const cases: Array<[unknown, string]> = [
      [{ type: "erase", subject: {} }, "subject"],
      [{ type: "erase", subject: { email: "ana.garcia@gmail.com", phone: "+34600111222" } }, "subject"],
      [{ type: "erase", subject: { email: "not an email" } }, "subject.email"],
      [{ type: "erase", subject: { phone: "12" } }, "subject.phone"],
      [{ type: "erase", subject: { contact_id: "00000000-0000-4000-8000-000000000000" } }, "subject.contact_id"],
      [{ type: "forget", subject: { email: "ana.garcia@gmail.com" } }, "type"],
      [{ type: "erase", subject: { email: "ana.garcia@gmail.com" }, extra: 1 }, "extra"]
    ]
    for (const [body, field] of cases) {
      const res = await ask(body)
      expect([400, 422], JSON.stringify(body)).toContain(res.status)
      expect(Object.keys(res.body.error.details), JSON.stringify(res.body)).toContain(field)
    }
    expect(await sql`SELECT 1 FROM privacy_requests WHERE tenant_id = ${tenant.tenant_id} AND status = 'received'`).toHaveLength(0)
  })

  it("lists requests newest first in the one list shape, filtered by status", async () => {
    const page = await request(platform.baseUrl, "GET", "/api/v1/privacy/requests?limit=2&status=completed", { key })
    expect(page.status).toBe(200)
    expect(page.body.data.requests).toHaveLength(2)
    expect(page.body.data.requests.every((r: { status: string }) => r.status === "completed")).toBe(true)
    const next = await request(platform.baseUrl, "GET", `/api/v1/privacy/requests?limit=2&status=completed&cursor=${page.body.data.next_cursor}`, { key })
    expect(next.body.data.requests[0].created_at <= page.body.data.requests[1].created_at).toBe(true)
    expect((await request(platform.baseUrl, "GET", "/api/v1/privacy/requests?status=done", { key })).status).toBe(400)
  })

  it("needs privacy:write to ask (which * does not grant) and privacy:read to look", async () => {
    const body = { type: "suppress", subject: { email: address("scope") } }
    expect((await ask(body, tenant.live_key)).status).toBe(403)
    const reader = (await createKey(tenant.tenant_id, ["privacy:read"])).key
    expect((await request(platform.baseUrl, "GET", "/api/v1/privacy/requests", { key: reader })).status).toBe(200)
    expect((await ask(body, reader)).status).toBe(403)
  })

  it("carries a batch of erasures out side by side, each to completed, with nothing of the guests left in contacts", async () => {
    const emails = Array.from({ length: 6 }, (_, i) => address(`batch${i}`))
    for (const email of emails) {
      const res = await post(platform.baseUrl, "/api/v1/guests", tenant.live_key, { phone: e164Of(Math.floor(Math.random() * 80_000_000)), first_name: "Batch", last_name: "Erased", email })
      expect(res.status, JSON.stringify(res.body)).toBeLessThan(300)
    }
    const ids = await Promise.all(emails.map(async (email) => (await ask({ type: "erase", subject: { email } })).body.data.request_id as string))
    const done = await eventually("every erasure ended", async () => {
      const views = await Promise.all(ids.map(async (id) => (await read(id)).body.data))
      return views.every((v) => v.status === "completed") ? views : undefined
    }, 90_000)
    expect(done.every((v) => v.results.some((r: { store: string; count: number }) => r.store === "contacts" && r.count === 1))).toBe(true)
    // Side by side: some erasure started before another had ended (a runner does not hold one while it waits).
    const spans = done.map((v) => [Date.parse(v.started_at), Date.parse(v.completed_at)] as const).sort((a, b) => a[0] - b[0])
    expect(spans.some(([start], i) => i > 0 && start < spans[i - 1]![1])).toBe(true)
    expect(await sql`SELECT 1 FROM contacts WHERE tenant_id = ${tenant.tenant_id} AND email = ANY(${emails})`).toHaveLength(0)
  }, 120_000)

  it("keeps each account's requests to itself", async () => {
    const mine = (await ask({ type: "suppress", subject: { email: address("iso") } })).body.data.request_id as string
    const theirs = (await createKey(other.tenant_id, ["*", "privacy:write"])).key
    expect((await read(mine, theirs)).status).toBe(404)
    const list = await request(platform.baseUrl, "GET", "/api/v1/privacy/requests", { key: theirs })
    expect(list.body.data.requests).toEqual([])
    // A sandbox key of the same account sees the sandbox's requests only.
    const sandbox = (await createKey(tenant.tenant_id, ["*", "privacy:write"], { sandbox: true })).key
    expect((await read(mine, sandbox)).status).toBe(404)
  })
})
