import { expect } from "@effect/vitest"
import { createHmac, timingSafeEqual } from "node:crypto"
import { phone, reservation } from "./fixtures.ts"
import type { Received } from "./httpsReceiver.ts"
import type postgres from "postgres"
import { post, request, type TestTenant } from "./platform.ts"

/**
 * The receiver's side of the contract, written from the spec and not from the platform's code: HMAC-SHA256 keyed
 * with the secret over `X-Webhook-Timestamp + "." + raw body bytes`, compared in constant time with each
 * `sha256=<hex>` of X-Webhook-Signature. Returns the index of the signature that matched, or -1.
 */
export const matchingSignature = (r: Received, secret: string): number => {
  const timestamp = r.headers["x-webhook-timestamp"] as string
  const expected = createHmac("sha256", secret).update(Buffer.concat([Buffer.from(`${timestamp}.`, "utf8"), r.raw])).digest()
  const signatures = String(r.headers["x-webhook-signature"] ?? "").split(" ")
  return signatures.findIndex((s) => {
    if (!s.startsWith("sha256=")) return false
    const given = Buffer.from(s.slice("sha256=".length), "hex")
    return given.length === expected.length && timingSafeEqual(given, expected)
  })
}

export const expectVerifies = (r: Received, secret: string) => {
  expect(matchingSignature(r, secret), `signature of ${r.path} verifies`).toBeGreaterThanOrEqual(0)
  const skew = Math.abs(Date.parse(r.headers["x-webhook-timestamp"] as string) - r.at)
  expect(skew).toBeLessThan(5 * 60_000)
}

export const subscribe = async (baseUrl: string, key: string, body: Record<string, unknown>) => {
  const res = await post(baseUrl, "/api/v1/webhooks", key, body)
  expect(res.status, JSON.stringify(res.body)).toBe(201)
  return res.body.data as { id: string; secret: string } & Record<string, unknown>
}

let guestCounter = Math.floor(Math.random() * 1_000_000)

/** A reservation with a guest nobody has seen: the worker emits one `contact.created` for it. */
export const newGuestReservation = async (baseUrl: string, tenant: TestTenant, key = tenant.live_key) => {
  const guestPhone = phone(50_000_000 + guestCounter++)
  const res = await post(baseUrl, "/api/v1/reservations", key, reservation({ hotel_code: tenant.hotel_code }, {
    guests: [{ first_name: "Webhook", last_name: "Guest", phone: guestPhone, email: `wh${guestCounter}@gmail.com`, is_holder: true }]
  }))
  expect(res.status, JSON.stringify(res.body)).toBe(201)
  return { contactId: res.body.data.contacts[0].contact_id as string, reservationId: res.body.data.reservation_id as string }
}

export const deliveries = async (baseUrl: string, key: string, subscriptionId: string, query = "") =>
  (await request(baseUrl, "GET", `/api/v1/webhooks/${subscriptionId}/deliveries${query}`, { key })).body

export const eventually = async <A>(what: string, f: () => Promise<A | undefined>, timeoutMs = 10_000): Promise<A> => {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = await f()
    if (value !== undefined) return value
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 50))
  }
}

/** A subscription row written straight into the database (retention tests: no API, no deliverer involved). */
export const insertSubscriptionRow = async (sql: postgres.Sql, tenantId: string, id: string, sandbox = false) => {
  await sql`INSERT INTO webhook_subscriptions (id, tenant_id, sandbox, url, event_types, max_attempts, initial_backoff_seconds,
    max_backoff_seconds, secret_encrypted) VALUES (${id}, ${tenantId}, ${sandbox}, 'https://93.184.215.14/', '{*}', 1, 1, 1, '\\x00')`
}
