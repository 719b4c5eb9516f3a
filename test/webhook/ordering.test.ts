import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { phone } from "../support/fixtures.ts"
import { makeCertificate, startReceiver, trustForThisProcess, type Received, type Receiver } from "../support/httpsReceiver.ts"
import { validate } from "../support/jsonSchema.ts"
import { outboxMessages } from "../support/outbox.ts"
import { createKey, createTenant, post, request, startPlatform, testSql, type RunningPlatform, type TestTenant } from "../support/platform.ts"
import { deliveries, eventually, expectVerifies, subscribe } from "../support/webhook.ts"

// event_id and sequence in every body, POST .../test, .../deliveries/{id}/resend and .../replay, against a real HTTPS
// receiver, with the deliverer in this process.
let platform: RunningPlatform
let receiver: Receiver
let tenant: TestTenant
let doc: any
const sql = testSql()

beforeAll(async () => {
  const cert = makeCertificate()
  trustForThisProcess(cert)
  receiver = await startReceiver(cert)
  process.env.GEP_WEBHOOKS_ALLOW_LOOPBACK = "1"
  platform = await startPlatform("whorder")
  tenant = await createTenant("who")
  doc = (await request(platform.baseUrl, "GET", "/openapi.json")).body
}, 60_000)
afterAll(async () => {
  await platform?.stop()
  await receiver?.close()
  await sql.end()
  delete process.env.GEP_WEBHOOKS_ALLOW_LOOPBACK
})

const bodyOf = (r: Received) => JSON.parse(r.raw.toString("utf8"))
const call = (method: string, path: string, body?: unknown, key = tenant.live_key) =>
  request(platform.baseUrl, method, path, body === undefined ? { key } : { key, body })
let guestCounter = Math.floor(Math.random() * 1_000_000)
/** A guest upserted by phone: the first call creates the contact, later calls with other names update it. */
const upsertGuest = async (guestPhone: string, firstName: string) => {
  const res = await post(platform.baseUrl, "/api/v1/guests", tenant.live_key, { phone: guestPhone, first_name: firstName, last_name: "Order" })
  expect(res.status, JSON.stringify(res.body)).toBeLessThan(300)
  return res.body.data.contact_id as string
}
const contactEvents = (path: string, contactId: string) =>
  receiver.on(path).map((r) => ({ r, body: bodyOf(r) })).filter((e) => e.body.data.contact?.id === contactId)
const newSubscription = async (path: string, body: Record<string, unknown> = {}) =>
  subscribe(platform.baseUrl, tenant.live_key, { url: receiver.url(path), event_types: ["contact.created", "contact.updated"], ...body })

describe("event_id and sequence in every delivery", () => {
  it("keeps event_id, sequence and the bytes across a failed attempt and its retry; a new X-Webhook-Delivery each", async () => {
    const sub = await newSubscription("/retry", { retry_policy: { max_attempts: 3, initial_backoff_seconds: 1, max_backoff_seconds: 5 } })
    receiver.respond("/retry", (_r, i) => (i === 0 ? 503 : 200))
    await upsertGuest(phone(70_000_000 + guestCounter++), "Retry")
    const [failed, retried] = await receiver.waitFor("/retry", 2, 15_000)
    const body = bodyOf(failed!)
    expect(Object.keys(body)).toEqual(["event_id", "event_type", "sequence", "timestamp", "data"])
    expect(body.event_id).toBe(failed!.headers["x-webhook-event-id"])
    expect(Number.isSafeInteger(body.sequence) && body.sequence > 0).toBe(true)
    expect(retried!.raw.equals(failed!.raw)).toBe(true)
    expect(retried!.headers["x-webhook-event-id"]).toBe(body.event_id)
    expect(retried!.headers["x-webhook-delivery"]).not.toBe(failed!.headers["x-webhook-delivery"])
    for (const r of [failed!, retried!]) expectVerifies(r, sub.secret)
    const log = await eventually("two attempts logged", async () => {
      const page = await deliveries(platform.baseUrl, tenant.live_key, sub.id)
      return page.data.deliveries.length === 2 ? page : undefined
    })
    expect(log.data.deliveries.map((d: any) => [d.event_id, d.attempt, d.outcome, d.trigger])).toEqual([
      [body.event_id, 2, "succeeded", "event"], [body.event_id, 1, "failed", "event"]
    ])
  }, 30_000)

  it("numbers successive updates of one contact in increasing order, each contact on its own counter", async () => {
    await newSubscription("/order")
    const phones = [phone(70_000_000 + guestCounter++), phone(70_000_000 + guestCounter++)]
    const a = await upsertGuest(phones[0]!, "A0")
    const b = await upsertGuest(phones[1]!, "B0")
    for (let i = 1; i <= 3; i++) {
      await upsertGuest(phones[0]!, `A${i}`)
      if (i === 2) await upsertGuest(phones[1]!, "B1")
    }
    await eventually("six contact events", async () => (receiver.on("/order").length >= 6 ? true : undefined))
    const ofA = contactEvents("/order", a).map((e) => e.body)
    const ofB = contactEvents("/order", b).map((e) => e.body)
    expect(ofA.map((e) => e.event_type)).toEqual(["contact.created", "contact.updated", "contact.updated", "contact.updated"].slice(0, ofA.length))
    expect(ofA).toHaveLength(4)
    expect(ofB).toHaveLength(2)
    // In the order of the changes (the calls above ran one after another): names and sequences agree.
    const byName = (events: Array<any>) => [...events].sort((x, y) => x.sequence - y.sequence).map((e) => e.data.contact.first_name)
    expect(byName(ofA)).toEqual(["A0", "A1", "A2", "A3"])
    expect(byName(ofB)).toEqual(["B0", "B1"])
    // The sequence is in the committed outbox payload: a republish after a crash, or a redelivered envelope (which
    // writes no new row), sends these same numbers.
    const stored = (await outboxMessages(platform.config.namespace, tenant.tenant_id))
      .map((m) => m.payload as { data?: { contact?: { id: string } }; sequence?: number })
      .filter((p) => p.data?.contact?.id === a).map((p) => p.sequence).sort()
    expect(stored).toEqual(ofA.map((e) => e.sequence).sort())
    // One counter per contact: each holds the last sequence its contact's events carried.
    const counters = await sql`SELECT object_key, last_value::text AS last FROM webhook_sequences
      WHERE tenant_id = ${tenant.tenant_id} AND sandbox = false AND object_key = ANY(${[`contact:${a}`, `contact:${b}`]})`
    expect(Object.fromEntries(counters.map((r) => [r.object_key, Number(r.last)]))).toEqual({
      [`contact:${a}`]: Math.max(...ofA.map((e) => e.sequence)), [`contact:${b}`]: Math.max(...ofB.map((e) => e.sequence))
    })
  }, 30_000)
})

describe("POST /api/v1/webhooks/{id}/test", () => {
  it("sends a signed webhook.test to that subscription only, logged under its event_id, as the document says", async () => {
    const sub = await newSubscription("/test-target")
    const bystander = await newSubscription("/test-bystander", { event_types: ["*"] })
    const res = await call("POST", `/api/v1/webhooks/${sub.id}/test`)
    expect(res.status).toBe(202)
    expect(res.body.data).toMatchObject({ event_type: "webhook.test", subscription_id: sub.id })
    const [r] = await receiver.waitFor("/test-target", 1)
    expectVerifies(r!, sub.secret)
    expect(r!.headers["x-webhook-event"]).toBe("webhook.test")
    const body = bodyOf(r!)
    expect(body).toMatchObject({ event_id: res.body.data.event_id, event_type: "webhook.test", sequence: res.body.data.sequence, data: { subscription_id: sub.id } })
    const documented = doc.webhooks["webhook.test"].post.requestBody.content["application/json"].schema
    expect(validate(documented, body, documented)).toEqual([])
    const log = await eventually("test attempt logged", async () => (await deliveries(platform.baseUrl, tenant.live_key, sub.id)).data.deliveries[0])
    expect(log).toMatchObject({ event_id: body.event_id, event_type: "webhook.test", trigger: "test", outcome: "succeeded", attempt: 1 })
    // A second test event of the same subscription comes later in its own sequence.
    const again = await call("POST", `/api/v1/webhooks/${sub.id}/test`)
    expect(again.body.data.sequence).toBeGreaterThan(res.body.data.sequence)
    await receiver.waitFor("/test-target", 2)
    await new Promise((r) => setTimeout(r, 300))
    expect(receiver.on("/test-bystander")).toHaveLength(0)
    expect(bystander.id).not.toBe(sub.id)
  })
})

describe("resend and replay", () => {
  it("resends one past event: same bytes, event_id and sequence; a new X-Webhook-Delivery; logged as a resend", async () => {
    const sub = await newSubscription("/resend")
    const contactId = await upsertGuest(phone(70_000_000 + guestCounter++), "Resend")
    const [first] = await receiver.waitFor("/resend", 1)
    const original = await eventually("attempt logged", async () => (await deliveries(platform.baseUrl, tenant.live_key, sub.id)).data.deliveries[0])
    const res = await call("POST", `/api/v1/webhooks/${sub.id}/deliveries/${original.id}/resend`)
    expect(res.status).toBe(202)
    expect(res.body.data).toMatchObject({ event_id: original.event_id, subscription_id: sub.id })
    const [, again] = await receiver.waitFor("/resend", 2)
    expect(again!.raw.equals(first!.raw)).toBe(true)
    expect(bodyOf(again!).data.contact.id).toBe(contactId)
    expect(again!.headers["x-webhook-event-id"]).toBe(original.event_id)
    expect(again!.headers["x-webhook-delivery"]).not.toBe(first!.headers["x-webhook-delivery"])
    expectVerifies(again!, sub.secret)
    const log = await eventually("resend logged", async () => {
      const rows = (await deliveries(platform.baseUrl, tenant.live_key, sub.id)).data.deliveries
      return rows.length === 2 ? rows : undefined
    })
    expect(log[0]).toMatchObject({ id: again!.headers["x-webhook-delivery"], event_id: original.event_id, trigger: "resend", attempt: 1, outcome: "succeeded" })
  })

  it("replays a window with an event_types filter: only those events, the same bodies, in the order emitted", async () => {
    const sub = await newSubscription("/replay")
    const since = new Date(Date.now() - 1_000).toISOString()
    const guestPhone = phone(70_000_000 + guestCounter++)
    await upsertGuest(guestPhone, "R0")
    await upsertGuest(guestPhone, "R1")
    await upsertGuest(guestPhone, "R2")
    const firstRound = await receiver.waitFor("/replay", 3)
    await eventually("three stored", async () =>
      ((await sql`SELECT count(*)::int AS n FROM webhook_events WHERE subscription_id = ${sub.id}`)[0]!.n === 3 ? true : undefined))
    const res = await call("POST", `/api/v1/webhooks/${sub.id}/replay`, { since, event_types: ["contact.updated"] })
    expect(res.status, JSON.stringify(res.body)).toBe(202)
    expect(res.body.data).toMatchObject({ subscription_id: sub.id, since, event_types: ["contact.updated"], events: 2 })
    const all = await receiver.waitFor("/replay", 5)
    const replayed = all.slice(3)
    const updates = firstRound.filter((r) => bodyOf(r).event_type === "contact.updated")
    expect(replayed.map((r) => r.raw.toString()).sort()).toEqual(updates.map((r) => r.raw.toString()).sort())
    for (const r of replayed) expectVerifies(r, sub.secret)
    await new Promise((r) => setTimeout(r, 300))
    expect(receiver.on("/replay")).toHaveLength(5)
    const log = await eventually("replay attempts logged", async () => {
      const rows = (await deliveries(platform.baseUrl, tenant.live_key, sub.id)).data.deliveries
      return rows.length === 5 ? rows : undefined
    })
    expect(log.filter((d: any) => d.trigger === "replay").map((d: any) => d.event_id).sort())
      .toEqual(replayed.map((r) => r.headers["x-webhook-event-id"]).sort())
  })

  it("refuses a bad window with 400 naming the field; nothing is replayed", async () => {
    const sub = await newSubscription("/replay-bad")
    const day = 86_400_000
    const iso = (ms: number) => new Date(Date.now() + ms).toISOString()
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ since: "yesterday" }, "since"],
      [{ since: iso(-15 * day) }, "since"],
      [{ since: iso(60_000) }, "since"],
      [{ since: iso(-day), until: iso(-2 * day) }, "until"],
      [{ since: iso(-day), until: "soon" }, "until"],
      [{ since: iso(-13 * day), until: iso(2 * day) }, "until"],
      [{ since: iso(-day), event_types: ["contact.exploded"] }, "event_types"],
      [{ since: iso(-day), event_types: [] }, "event_types"],
      [{}, "since"]
    ]
    for (const [body, field] of cases) {
      const res = await call("POST", `/api/v1/webhooks/${sub.id}/replay`, body)
      expect(res.status, JSON.stringify(body)).toBe(400)
      expect(res.body.error.code).toBe("VALIDATION_ERROR")
      expect(Object.keys(res.body.error.details).join(" "), JSON.stringify(body)).toContain(field)
    }
    expect(await sql`SELECT 1 FROM webhook_replays WHERE subscription_id = ${sub.id}`).toHaveLength(0)
  })

  it("answers 404 for another tenant's or mode's subscription and for a delivery that is not this subscription's", async () => {
    const sub = await newSubscription("/iso")
    const other = await createTenant("who-other")
    const sandboxSub = await subscribe(platform.baseUrl, tenant.test_key, { url: receiver.url("/iso-sandbox"), event_types: ["contact.created"] })
    const mine = await newSubscription("/iso-mine")
    await call("POST", `/api/v1/webhooks/${mine.id}/test`)
    const delivery = await eventually("a delivery", async () => (await deliveries(platform.baseUrl, tenant.live_key, mine.id)).data.deliveries[0])
    const since = new Date(Date.now() - 60_000).toISOString()
    const refused: Array<[string, string, string]> = [
      [`/api/v1/webhooks/${sub.id}/test`, other.live_key, "id"],
      [`/api/v1/webhooks/${sub.id}/test`, tenant.test_key, "id"],
      [`/api/v1/webhooks/${sandboxSub.id}/test`, tenant.live_key, "id"],
      [`/api/v1/webhooks/not-a-uuid/test`, tenant.live_key, "id"],
      [`/api/v1/webhooks/${sub.id}/replay`, other.live_key, "id"],
      [`/api/v1/webhooks/${mine.id}/deliveries/${delivery.id}/resend`, other.live_key, "id"],
      [`/api/v1/webhooks/${sub.id}/deliveries/${delivery.id}/resend`, tenant.live_key, "delivery_id"],
      [`/api/v1/webhooks/${mine.id}/deliveries/00000000-0000-4000-8000-000000000000/resend`, tenant.live_key, "delivery_id"],
      [`/api/v1/webhooks/${mine.id}/deliveries/nope/resend`, tenant.live_key, "delivery_id"]
    ]
    for (const [path, key, field] of refused) {
      const res = await call("POST", path, path.endsWith("/replay") ? { since } : undefined, key)
      expect(res.status, path).toBe(404)
      expect(res.body.error.details, path).toHaveProperty([field])
    }
    const narrow = await call("POST", `/api/v1/webhooks/${mine.id}/test`, undefined, (await createKey(tenant.tenant_id, ["guests:read"])).key)
    expect(narrow.status).toBe(403)
  })

  it("limits replays: one being sent at a time and five an hour per subscription, 429 with Retry-After beyond", async () => {
    const sub = await newSubscription("/limited")
    const since = new Date(Date.now() - 60_000).toISOString()
    // A replay still being published (as a worker mid-way through a large window would leave it).
    await sql`INSERT INTO webhook_replays (id, subscription_id, tenant_id, sandbox, since, until, events)
      VALUES (gen_random_uuid(), ${sub.id}, ${tenant.tenant_id}, false, now() - interval '1 hour', now(), 10000)`
    const running = await call("POST", `/api/v1/webhooks/${sub.id}/replay`, { since })
    expect(running.status).toBe(429)
    expect(running.body.error.code).toBe("RATE_LIMITED")
    expect(Number(running.headers.get("retry-after"))).toBeGreaterThan(0)
    expect(Number(running.headers.get("retry-after"))).toBeLessThanOrEqual(600)
    await sql`UPDATE webhook_replays SET published_at = now() WHERE subscription_id = ${sub.id}`
    for (let i = 0; i < 4; i++) {
      const res = await call("POST", `/api/v1/webhooks/${sub.id}/replay`, { since })
      expect(res.status, JSON.stringify(res.body)).toBe(202)
      await eventually("replay published", async () =>
        (await sql`SELECT 1 FROM webhook_replays WHERE id = ${res.body.data.replay_id} AND published_at IS NOT NULL`).length > 0 ? true : undefined)
    }
    const sixth = await call("POST", `/api/v1/webhooks/${sub.id}/replay`, { since })
    expect(sixth.status).toBe(429)
    expect(Number(sixth.headers.get("retry-after"))).toBeGreaterThan(3_000)
    // Another subscription's replays are counted apart.
    const other = await newSubscription("/limited-other")
    expect((await call("POST", `/api/v1/webhooks/${other.id}/replay`, { since })).status).toBe(202)
  })
})
