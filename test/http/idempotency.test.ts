import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { reservation, uniqueId } from "../support/fixtures.ts"
import { createTenant, request, startPlatform, testSql, type RunningPlatform, type TestTenant } from "../support/platform.ts"
import { connect, type NatsConnection } from "@nats-io/transport-node"
import { inject } from "vitest"

import { ingressWildcard } from "../../streams/subjects.ts"
import { Envelopes } from "../../streams/topics.ts"

/**
 * Idempotency-Key (issue 24) over the real platform: a retry with the same key and request replays the first answer
 * byte for byte and publishes nothing; another request with the key is a 409; keys are per account and mode; 24 h.
 */

let platform: RunningPlatform
let tenant: TestTenant
let other: TestTenant
const sql = testSql()
let nc: NatsConnection
/** Envelopes published on this deployment's ingress subjects for the test's tenants (a core subscription sees each). */
let published = 0

beforeAll(async () => {
  platform = await startPlatform("idem")
  ;[tenant, other] = await Promise.all([createTenant("idem"), createTenant("idem-other")])
  nc = await connect({ servers: inject("natsUrl").split(",") })
  const own = new Set([tenant.tenant_id, other.tenant_id])
  nc.subscribe(ingressWildcard(platform.config.namespace), {
    callback: (_, msg) => {
      if (own.has(Envelopes.decode(msg.data).tenant_id)) published++
    }
  })
  await sql`INSERT INTO channel_email (tenant_id, sandbox, from_address) VALUES (${tenant.tenant_id}, false, 'stay@hotelexample.com') ON CONFLICT DO NOTHING`
}, 60_000)
afterAll(async () => {
  await nc?.close()
  await platform?.stop()
  await sql.end()
})

/** The count of own envelopes once nothing more arrives for 300 ms (what an accepted write set going has landed). */
const settled = async () => {
  for (;;) {
    await nc.flush()
    const before = published
    await new Promise((r) => setTimeout(r, 300))
    if (published === before) return published
  }
}

interface Raw {
  readonly status: number
  readonly text: string
  readonly headers: Headers
}
/** A POST answered as raw text: a replay is compared byte for byte. */
const send = async (path: string, body: unknown, key: string | undefined, apiKey = tenant.live_key): Promise<Raw> => {
  const res = await fetch(platform.baseUrl + path, {
    method: "POST",
    headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json", ...(key === undefined ? {} : { "idempotency-key": key }) },
    body: typeof body === "string" ? body : JSON.stringify(body)
  })
  return { status: res.status, text: await res.text(), headers: res.headers }
}

/** The second answer is the first again, byte for byte, marked replayed, and nothing reached the ingress stream. */
const expectReplay = async (path: string, body: unknown) => {
  const key = uniqueId("idem")
  const start = await settled()
  const first = await send(path, body, key)
  expect(first.status, first.text).toBeLessThan(300)
  expect(first.headers.get("idempotent-replayed")).toBeNull()
  const seq = await settled()
  // The first request went through its actor (the counter sees it); the replay must add nothing.
  expect(seq).toBeGreaterThan(start)
  const again = await send(path, body, key)
  expect(again.status).toBe(first.status)
  expect(again.text).toBe(first.text)
  expect(again.headers.get("content-type")).toBe(first.headers.get("content-type"))
  expect(again.headers.get("idempotent-replayed")).toBe("true")
  expect(again.headers.get("x-request-id")).not.toBe(first.headers.get("x-request-id"))
  expect(await settled()).toBe(seq)
  return { key, first: JSON.parse(first.text) }
}

describe("a retry with the same Idempotency-Key and request", () => {
  it("replays a reservation's answer", async () => {
    await expectReplay("/api/v1/reservations", reservation({ hotel_code: tenant.hotel_code }))
  })

  it("replays a guest's answer", async () => {
    await expectReplay("/api/v1/guests", { phone: `+3461${Math.floor(1_000_000 + Math.random() * 8_999_999)}`, first_name: "Idem", last_name: "Potent" })
  })

  it("replays an event's answer: one event id, one row (the walk-through's two POSTs gave two)", async () => {
    const marker = uniqueId("evt")
    const { first } = await expectReplay("/api/v1/events", { event_type: "review.requested", payload: { marker } })
    const [row] = await sql`SELECT count(*)::int AS n FROM events WHERE tenant_id = ${tenant.tenant_id} AND payload->>'marker' = ${marker}`
    expect(row!.n).toBe(1)
    expect(first.data.event_id).toBeTypeOf("string")
  })

  it("replays a message's answer (the route that read the header itself keeps one message)", async () => {
    const guest = await request(platform.baseUrl, "POST", "/api/v1/guests", {
      key: tenant.live_key, body: { phone: `+3462${Math.floor(1_000_000 + Math.random() * 8_999_999)}`, first_name: "Mai", last_name: "Ler", email: `${uniqueId("m").toLowerCase()}@gmail.com` }
    })
    const contact = guest.body.data.contact_id as string
    const { first } = await expectReplay("/api/v1/messages", { contact_id: contact, channel: "email", category: "utility", subject: "Once", text: "T" })
    const [row] = await sql`SELECT count(*)::int AS n FROM messages WHERE contact_id = ${contact}`
    expect(row!.n).toBe(1)
    expect(first.data.message_id).toBeTypeOf("string")
  })

  it("replays a loyalty enrolment's answer", async () => {
    await expectReplay("/api/v1/loyalty/enroll", { email: `${uniqueId("loyal").toLowerCase()}@gmail.com`, loyalty_balance: 10 })
  })

  it("replays a decided 4xx too (a 400 repeats for the same body), never a 5xx", async () => {
    const key = uniqueId("bad")
    const first = await send("/api/v1/guests", { first_name: 3 }, key)
    expect(first.status).toBe(400)
    const again = await send("/api/v1/guests", { first_name: 3 }, key)
    expect(again.text).toBe(first.text)
    expect(again.headers.get("idempotent-replayed")).toBe("true")
  })
})

describe("the same key for another request", () => {
  it("is a 409 IDEMPOTENCY_CONFLICT in the core shape, and writes nothing", async () => {
    const key = uniqueId("conflict")
    const body = reservation({ hotel_code: tenant.hotel_code })
    expect((await send("/api/v1/reservations", body, key)).status).toBe(201)
    const seq = await settled()
    const other = await send("/api/v1/reservations", { ...body, status: "cancelled" }, key)
    expect(other.status).toBe(409)
    const parsed = JSON.parse(other.text)
    expect(parsed).toMatchObject({ success: false, error: { code: "IDEMPOTENCY_CONFLICT", details: { "Idempotency-Key": expect.any(Array) } } })
    expect(parsed.error.request_id).toBe(other.headers.get("x-request-id"))
    // Another path with the key is another request too.
    expect((await send("/api/v1/events", { event_type: "review.requested", payload: {} }, key)).status).toBe(409)
    expect(await settled()).toBe(seq)
  })
})

describe("key spaces", () => {
  it("another account, or the other mode of the same account, with the same key runs on its own", async () => {
    const key = uniqueId("space")
    const body = { event_type: "review.requested", payload: { k: key } }
    const live = JSON.parse((await send("/api/v1/events", body, key)).text)
    const sandbox = await send("/api/v1/events", body, key, tenant.test_key)
    const elsewhere = await send("/api/v1/events", body, key, other.live_key)
    for (const r of [sandbox, elsewhere]) {
      expect(r.status).toBe(201)
      expect(r.headers.get("idempotent-replayed")).toBeNull()
      expect(JSON.parse(r.text).data.event_id).not.toBe(live.data.event_id)
    }
  })
})

describe("the header", () => {
  it("is refused with 400 naming it when empty, longer than 255 or not printable ASCII; nothing is published", async () => {
    const seq = await settled()
    for (const bad of ["x".repeat(256), "caf\u00e9", "tab\there"]) {
      const res = await send("/api/v1/events", { event_type: "review.requested", payload: {} }, bad)
      expect(res.status, bad).toBe(400)
      expect(JSON.parse(res.text).error.details).toHaveProperty("Idempotency-Key")
    }
    expect(await settled()).toBe(seq)
    // 255 printable characters are a key.
    expect((await send("/api/v1/events", { event_type: "review.requested", payload: {} }, "k".repeat(254) + "~")).status).toBe(201)
  })
})

describe("concurrent retries", () => {
  it("with one key write once: the others wait for the first answer and replay it", async () => {
    const key = uniqueId("race")
    const marker = uniqueId("race")
    const body = { event_type: "review.requested", payload: { marker } }
    const answers = await Promise.all(Array.from({ length: 6 }, () => send("/api/v1/events", body, key)))
    const ids = new Set(answers.map((a) => JSON.parse(a.text).data?.event_id))
    expect(answers.map((a) => a.status)).toEqual(Array(6).fill(201))
    expect(ids.size).toBe(1)
    expect(answers.filter((a) => a.headers.get("idempotent-replayed") === "true")).toHaveLength(5)
    const [row] = await sql`SELECT count(*)::int AS n FROM events WHERE tenant_id = ${tenant.tenant_id} AND payload->>'marker' = ${marker}`
    expect(row!.n).toBe(1)
  })
})

describe("after 24 hours", () => {
  it("a key is free again: the same request runs anew", async () => {
    const key = uniqueId("old")
    const body = { event_type: "review.requested", payload: { k: key } }
    const first = JSON.parse((await send("/api/v1/events", body, key)).text)
    await sql`UPDATE idempotency_keys SET created_at = created_at - interval '24 hours 1 second' WHERE tenant_id = ${tenant.tenant_id} AND key = ${key}`
    const later = await send("/api/v1/events", body, key)
    expect(later.status).toBe(201)
    expect(later.headers.get("idempotent-replayed")).toBeNull()
    expect(JSON.parse(later.text).data.event_id).not.toBe(first.data.event_id)
  })
})

describe("the body keys", () => {
  it("idempotency_key on events keeps answering the first event, with or without the header", async () => {
    const bodyKey = uniqueId("body")
    const body = { event_type: "review.requested", payload: {}, idempotency_key: bodyKey }
    const first = JSON.parse((await send("/api/v1/events", body, undefined)).text)
    const withHeader = await send("/api/v1/events", body, uniqueId("h"))
    expect(withHeader.status).toBe(200)
    expect(JSON.parse(withHeader.text).data).toMatchObject({ event_id: first.data.event_id, idempotent_replay: true })
  })
})
