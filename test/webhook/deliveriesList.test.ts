import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { randomUUID } from "node:crypto"
import { createTenant, post, request, startPlatform, testSql, type RunningPlatform, type TestTenant } from "../support/platform.ts"
import { eventually } from "../support/webhook.ts"

// GET /api/v1/webhook-deliveries: every subscription's delivery log of the account in one list. The subscriptions
// are disabled (nothing calls out): attempts are written as the deliverer writes them, and a resend goes through the
// real deliverer, which logs it as skipped, so the failed attempt's `last_attempt` moves to it.
delete process.env.GEP_WEBHOOKS_ALLOW_LOOPBACK
let platform: RunningPlatform
let tenant: TestTenant
const sql = testSql()
const URL_A = "https://93.184.215.14/hooks/a"
const URL_B = "https://93.184.215.14/hooks/b"

beforeAll(async () => {
  platform = await startPlatform("whlist")
  tenant = await createTenant("whlist")
})
afterAll(async () => {
  await platform?.stop()
  await sql.end()
})

const subscription = async (t: TestTenant, url: string) => {
  const res = await post(platform.baseUrl, "/api/v1/webhooks", t.live_key, { url, event_types: ["contact.created", "reservation.checked_in"], enabled: false })
  expect(res.status, JSON.stringify(res.body)).toBe(201)
  return res.body.data.id as string
}

/** An event's body as the fan-out keeps it, and one attempt at it; the attempt's id. */
const attempt = async (t: TestTenant, sub: string, o: { event_id?: string; event_type?: string; outcome?: string; status?: number | null; error?: string | null; contact_id?: string | null; minutesAgo?: number; attempt?: number }) => {
  const eventId = o.event_id ?? randomUUID()
  const at = new Date(Date.now() - (o.minutesAgo ?? 0) * 60_000).toISOString()
  await sql`INSERT INTO webhook_events (subscription_id, event_id, tenant_id, sandbox, event_type, body, contact_id, emitted_at)
    VALUES (${sub}, ${eventId}, ${t.tenant_id}, false, ${o.event_type ?? "contact.created"}, '{"event_id":"x"}', ${o.contact_id ?? null}, ${at})
    ON CONFLICT DO NOTHING`
  const id = randomUUID()
  await sql`INSERT INTO webhook_deliveries (id, subscription_id, tenant_id, sandbox, event_id, event_type, attempt, outcome, response_status, error, duration_ms, attempted_at)
    VALUES (${id}, ${sub}, ${t.tenant_id}, false, ${eventId}, ${o.event_type ?? "contact.created"}, ${o.attempt ?? 1}, ${o.outcome ?? "succeeded"},
      ${o.status === undefined ? 200 : o.status}, ${o.error ?? null}, 12, ${at})`
  return { id, eventId }
}

const list = (t: TestTenant, query = "") => request(platform.baseUrl, "GET", `/api/v1/webhook-deliveries${query}`, { key: t.live_key })
const ids = async (t: TestTenant, query: string) => {
  const res = await list(t, query)
  expect(res.status, JSON.stringify(res.body)).toBe(200)
  return (res.body.data.deliveries as Array<{ id: string }>).map((d) => d.id)
}

describe("GET /api/v1/webhook-deliveries", () => {
  it("lists every subscription's attempts newest first, with the URL, the contact and the event's newest attempt", async () => {
    const t = await createTenant("whlist-a")
    const [a, b] = [await subscription(t, URL_A), await subscription(t, URL_B)]
    const contact = randomUUID()
    const first = await attempt(t, a, { outcome: "failed", status: 500, error: "HTTP 500", contact_id: contact, minutesAgo: 30 })
    const retry = await attempt(t, a, { event_id: first.eventId, outcome: "succeeded", status: 200, attempt: 2, contact_id: contact, minutesAgo: 20 })
    const other = await attempt(t, b, { event_type: "reservation.checked_in", outcome: "failed", status: null, error: "timeout after 10000 ms", minutesAgo: 10 })
    const res = await list(t)
    expect(res.body.data.deliveries.map((d: { id: string }) => d.id)).toEqual([other.id, retry.id, first.id])
    const [o, r, f] = res.body.data.deliveries
    expect(f).toMatchObject({
      id: first.id, webhook_id: a, url: URL_A, event_id: first.eventId, event_type: "contact.created", contact_id: contact, attempt: 1,
      outcome: "failed", response_status: 500, error: "HTTP 500", trigger: "event",
      last_attempt: { attempt: 2, outcome: "succeeded", response_status: 200, error: null, trigger: "event" }
    })
    expect(r.last_attempt.attempted_at).toBe(r.attempted_at)
    expect(o).toMatchObject({ webhook_id: b, url: URL_B, contact_id: null, response_status: null, error: "timeout after 10000 ms",
      last_attempt: { outcome: "failed", response_status: null, error: "timeout after 10000 ms" } })
  })

  it("filters by webhook_id, event_type, status, contact_id and time", async () => {
    const t = await createTenant("whlist-f")
    const [a, b] = [await subscription(t, URL_A), await subscription(t, URL_B)]
    const contact = randomUUID()
    const x = {
      aOk: await attempt(t, a, { minutesAgo: 50 }),
      aFail: await attempt(t, a, { outcome: "failed", status: 503, contact_id: contact, minutesAgo: 40 }),
      bRes: await attempt(t, b, { event_type: "reservation.checked_in", minutesAgo: 30 }),
      bGone: await attempt(t, b, { outcome: "gone", status: 410, contact_id: contact, minutesAgo: 20 }),
      old: await attempt(t, b, { minutesAgo: 3 * 24 * 60 })
    }
    expect(await ids(t, `?webhook_id=${a}`)).toEqual([x.aFail.id, x.aOk.id])
    expect(await ids(t, "?event_type=reservation.checked_in")).toEqual([x.bRes.id])
    expect(await ids(t, "?status=failed")).toEqual([x.aFail.id])
    expect(await ids(t, "?status=gone")).toEqual([x.bGone.id])
    expect(await ids(t, `?contact_id=${contact}`)).toEqual([x.bGone.id, x.aFail.id])
    const since = encodeURIComponent(new Date(Date.now() - 45 * 60_000).toISOString())
    const until = encodeURIComponent(new Date(Date.now() - 25 * 60_000).toISOString())
    expect(await ids(t, `?from=${since}&to=${until}`)).toEqual([x.bRes.id, x.aFail.id])
    const day = new Date(Date.now() - 3 * 86_400_000).toISOString().slice(0, 10)
    expect(await ids(t, `?from=${day}&to=${day}`)).toEqual([x.old.id])
  })

  it("pages with next_cursor, no attempt twice", async () => {
    const t = await createTenant("whlist-p")
    const a = await subscription(t, URL_A)
    const stored: Array<string> = []
    for (let i = 0; i < 5; i++) stored.push((await attempt(t, a, { minutesAgo: i })).id)
    const seen: Array<string> = []
    let cursor: string | null = null
    do {
      const res = await list(t, `?limit=2${cursor === null ? "" : `&cursor=${encodeURIComponent(cursor)}`}`)
      seen.push(...res.body.data.deliveries.map((d: { id: string }) => d.id))
      cursor = res.body.data.next_cursor
    } while (cursor !== null)
    expect(seen).toEqual(stored)
  })

  it("shows a resend through the deliverer as the failed attempt's last attempt", async () => {
    const a = await subscription(tenant, URL_A)
    const failed = await attempt(tenant, a, { outcome: "failed", status: 500, error: "HTTP 500" })
    const resend = await post(platform.baseUrl, `/api/v1/webhooks/${a}/deliveries/${failed.id}/resend`, tenant.live_key, {})
    expect(resend.status, JSON.stringify(resend.body)).toBe(202)
    const row = await eventually("the resend's attempt", async () => {
      const res = await list(tenant, `?webhook_id=${a}&status=failed`)
      const d = res.body.data.deliveries.find((x: { id: string }) => x.id === failed.id)
      return d?.last_attempt.trigger === "resend" ? d : undefined
    }, 15_000)
    expect(row.last_attempt.outcome).toBe("skipped")
  })

  it("answers 400 naming the parameter for each bad filter", async () => {
    for (const [query, parameter] of [
      ["webhook_id=x", "webhook_id"], ["contact_id=1", "contact_id"], ["status=bounced", "status"], ["from=soon", "from"], ["to=2026-13-01", "to"],
      ["from=2026-05-02&to=2026-05-01", "to"], ["limit=101", "limit"], ["cursor=x", "cursor"], [`event_type=${"e".repeat(101)}`, "event_type"]
    ] as const) {
      const res = await list(tenant, `?${query}`)
      expect(res.status, query).toBe(400)
      expect(Object.keys(res.body.error.details), query).toEqual([parameter])
    }
  })

  it("never shows another tenant's attempts, nor the other mode's", async () => {
    const mine = await subscription(tenant, URL_B)
    const theirs = await createTenant("whlist-other")
    const sub = await subscription(theirs, URL_B)
    const contact = randomUUID()
    const foreign = await attempt(theirs, sub, { contact_id: contact })
    expect(await ids(theirs, "")).toContain(foreign.id)
    for (const query of ["", `?webhook_id=${sub}`, `?contact_id=${contact}`]) expect(await ids(tenant, query), query).not.toContain(foreign.id)
    const own = await attempt(tenant, mine, {})
    const sandbox = await request(platform.baseUrl, "GET", "/api/v1/webhook-deliveries", { key: tenant.test_key })
    expect(sandbox.body.data.deliveries.map((d: { id: string }) => d.id)).not.toContain(own.id)
  })
})
