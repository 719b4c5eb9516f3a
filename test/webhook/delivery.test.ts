import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { jetstreamManager } from "@nats-io/jetstream"
import { connect } from "@nats-io/transport-node"
import { randomBytes } from "node:crypto"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { deliverySubject, subscriptionConsumer, webhookStream } from "../../streams/webhookTopology.ts"
import { makeCertificate, startReceiver, type Receiver } from "../support/httpsReceiver.ts"
import { createTenant, request, startPlatform, testSql, type RunningPlatform, type TestTenant } from "../support/platform.ts"
import { spawnWorker, type WorkerProcess } from "../support/processes.ts"
import { deliveries, eventually, expectVerifies, matchingSignature, newGuestReservation, subscribe } from "../support/webhook.ts"

// The test switch for loopback targets, and one encryption key shared by this ingress and the spawned worker.
process.env.GEP_WEBHOOKS_ALLOW_LOOPBACK = "1"
process.env.GEP_WEBHOOK_ENCRYPTION_KEY = randomBytes(32).toString("base64")

let ingress: RunningPlatform
let worker: WorkerProcess
let receiver: Receiver
let certDir: string
const sql = testSql()
const secrets = new Map<string, string>() // receiver path -> secret, to verify every delivery at the end

beforeAll(async () => {
  const cert = makeCertificate()
  certDir = mkdtempSync(join(tmpdir(), "gep-ca-"))
  writeFileSync(join(certDir, "receiver.pem"), cert.cert)
  receiver = await startReceiver(cert)
  ingress = await startPlatform("whdeliver", { role: "ingress" })
  // The deliverer runs as operators run it: its own process, trusting the receiver through NODE_EXTRA_CA_CERTS.
  worker = await spawnWorker(ingress.config, {
    NODE_EXTRA_CA_CERTS: join(certDir, "receiver.pem"),
    GEP_WEBHOOK_TIMEOUT_MS: "2000",
    GEP_LOG_LEVEL: "debug"
  })
})
afterAll(async () => {
  await worker?.stop()
  await ingress?.stop()
  await receiver?.close()
  await sql.end()
  if (certDir) rmSync(certDir, { recursive: true, force: true })
  delete process.env.GEP_WEBHOOKS_ALLOW_LOOPBACK
})

const setup = async (path: string, body: Record<string, unknown> = {}) => {
  const tenant = await createTenant("whd")
  const sub = await subscribe(ingress.baseUrl, tenant.live_key, { url: receiver.url(path), event_types: ["contact.created"], ...body })
  secrets.set(path, sub.secret)
  return { tenant, sub }
}

describe("webhook delivery to a real HTTPS receiver", () => {
  it("delivers contact.created signed over the raw bytes, with the spec's headers and envelope", async () => {
    const { tenant, sub } = await setup("/basic")
    const { contactId } = await newGuestReservation(ingress.baseUrl, tenant)
    const [r] = await receiver.waitFor("/basic", 1)
    expectVerifies(r!, sub.secret)
    expect(r!.headers["x-webhook-event"]).toBe("contact.created")
    expect(r!.headers["x-webhook-delivery"]).toMatch(/^[0-9a-f-]{36}$/)
    expect(r!.headers["x-webhook-event-id"]).toMatch(/^[0-9a-f-]{36}$/)
    expect(r!.headers["content-type"]).toBe("application/json")
    const body = JSON.parse(r!.raw.toString("utf8"))
    expect(Object.keys(body)).toEqual(["event_id", "event_type", "sequence", "timestamp", "data"])
    expect(body.event_id).toBe(r!.headers["x-webhook-event-id"])
    expect(body.event_type).toBe("contact.created")
    expect(body.data.contact).toMatchObject({ id: contactId, first_name: "Webhook", last_name: "Guest", hotel_id: tenant.hotel_id })
    expect(body.data.contact.phone).toMatch(/^\+34/)
    const log = await eventually("delivery log row", async () => {
      const page = await deliveries(ingress.baseUrl, tenant.live_key, sub.id)
      return page.data.deliveries.length > 0 ? page : undefined
    })
    expect(log.data.deliveries[0]).toMatchObject({ id: r!.headers["x-webhook-delivery"], attempt: 1, outcome: "succeeded", response_status: 200 })

    // Sandbox events go to sandbox subscriptions only, and live events never to them.
    const sandbox = await subscribe(ingress.baseUrl, tenant.test_key, { url: receiver.url("/basic-sandbox"), event_types: ["contact.created"] })
    secrets.set("/basic-sandbox", sandbox.secret)
    const sandboxGuest = await newGuestReservation(ingress.baseUrl, tenant, tenant.test_key)
    const [s] = await receiver.waitFor("/basic-sandbox", 1)
    expect(JSON.parse(s!.raw.toString("utf8")).data.contact.id).toBe(sandboxGuest.contactId)
    await newGuestReservation(ingress.baseUrl, tenant)
    await receiver.waitFor("/basic", 2)
    await new Promise((r) => setTimeout(r, 300))
    expect([receiver.on("/basic").length, receiver.on("/basic-sandbox").length]).toEqual([2, 1])
  })

  it("retries a receiver failing three times with growing waits; it gets the event once, with the same body", async () => {
    const { tenant, sub } = await setup("/flaky", { retry_policy: { max_attempts: 5, initial_backoff_seconds: 1, max_backoff_seconds: 60 } })
    receiver.respond("/flaky", (_r, i) => (i < 3 ? 500 : 200))
    await newGuestReservation(ingress.baseUrl, tenant)
    const attempts = await receiver.waitFor("/flaky", 4, 20_000)
    await new Promise((r) => setTimeout(r, 1_500))
    expect(receiver.on("/flaky").map((r) => r.status)).toEqual([500, 500, 500, 200])
    for (const a of attempts) {
      expectVerifies(a, sub.secret)
      expect(a.raw.equals(attempts[0]!.raw)).toBe(true)
      expect(a.headers["x-webhook-event-id"]).toBe(attempts[0]!.headers["x-webhook-event-id"])
    }
    expect(new Set(attempts.map((a) => a.headers["x-webhook-delivery"])).size).toBe(4)
    const waits = attempts.slice(1).map((a, i) => a.at - attempts[i]!.at)
    console.info(`retry waits observed (ms): ${waits.join(", ")}`)
    expect(waits[1]!).toBeGreaterThan(waits[0]!)
    expect(waits[2]!).toBeGreaterThan(waits[1]!)
    expect(waits[0]!).toBeGreaterThanOrEqual(750) // never earlier than the policy's first wait (1 s minus jitter)
    const log = await eventually("four log rows", async () => {
      const page = await deliveries(ingress.baseUrl, tenant.live_key, sub.id)
      return page.data.deliveries.length === 4 ? page : undefined
    })
    expect(log.data.deliveries.map((d: { attempt: number; outcome: string }) => [d.attempt, d.outcome])).toEqual([[4, "succeeded"], [3, "failed"], [2, "failed"], [1, "failed"]])
    expect(log.data.deliveries[1].next_attempt_at).not.toBeNull()
  }, 30_000)

  it("disables a subscription whose receiver answers 410 Gone, and sends it nothing more", async () => {
    const { tenant, sub } = await setup("/gone")
    receiver.respond("/gone", () => 410)
    await newGuestReservation(ingress.baseUrl, tenant)
    await receiver.waitFor("/gone", 1)
    const disabled = await eventually("subscription disabled", async () => {
      const res = await request(ingress.baseUrl, "GET", `/api/v1/webhooks/${sub.id}`, { key: tenant.live_key })
      return res.body.data.enabled === false ? res.body.data : undefined
    })
    expect(disabled.disabled_reason).toBe("gone")
    expect((await deliveries(ingress.baseUrl, tenant.live_key, sub.id)).data.deliveries[0]).toMatchObject({ outcome: "gone", response_status: 410 })
    await newGuestReservation(ingress.baseUrl, tenant)
    await new Promise((r) => setTimeout(r, 1_000))
    expect(receiver.on("/gone")).toHaveLength(1)
  })

  it("never lets custom headers replace the platform's, even ones written straight into the database", async () => {
    const { tenant, sub } = await setup("/custom", { headers: { "X-Partner-Token": "abc123" } })
    await sql`UPDATE webhook_subscriptions SET headers = headers || ${sql.json({
      "X-Webhook-Signature": "sha256=forged", "x-webhook-event": "forged", "X-WEBHOOK-TIMESTAMP": "1999", "Content-Type": "text/plain"
    })} WHERE id = ${sub.id}`
    await newGuestReservation(ingress.baseUrl, tenant)
    const [r] = await receiver.waitFor("/custom", 1)
    expect(r!.headers["x-partner-token"]).toBe("abc123")
    expect(r!.headers["x-webhook-signature"]).not.toContain("forged")
    expect(r!.headers["x-webhook-event"]).toBe("contact.created")
    expect(r!.headers["content-type"]).toBe("application/json")
    expectVerifies(r!, sub.secret)
  })

  it("signs with the new and the previous secret for 24 h after a rotation", async () => {
    const { tenant, sub } = await setup("/rotate")
    const rotated = await request(ingress.baseUrl, "POST", `/api/v1/webhooks/${sub.id}/rotate-secret`, { key: tenant.live_key })
    expect(rotated.status).toBe(200)
    const next = rotated.body.data.secret as string
    expect(next).not.toBe(sub.secret)
    expect(Date.parse(rotated.body.data.previous_secret_expires_at) - Date.now()).toBeGreaterThan(23.9 * 3600_000)
    secrets.set("/rotate", next)
    await newGuestReservation(ingress.baseUrl, tenant)
    const [r] = await receiver.waitFor("/rotate", 1)
    expect(String(r!.headers["x-webhook-signature"]).split(" ")).toHaveLength(2)
    expect(matchingSignature(r!, next)).toBe(0)
    expect(matchingSignature(r!, sub.secret)).toBe(1)
  })

  it("keeps a fast partner's deliveries flowing while another partner's endpoint is slow or hangs", async () => {
    const tenant: TestTenant = await createTenant("whd-iso")
    const slow = await subscribe(ingress.baseUrl, tenant.live_key, { url: receiver.url("/slow"), event_types: ["contact.created"], retry_policy: { max_attempts: 1 } })
    const fast = await subscribe(ingress.baseUrl, tenant.live_key, { url: receiver.url("/fast"), event_types: ["contact.created"] })
    secrets.set("/slow", slow.secret).set("/fast", fast.secret)
    receiver.respond("/slow", () => ({ status: 200, delayMs: 5_000 })) // beyond the 2 s attempt deadline
    const started = Date.now()
    for (let i = 0; i < 6; i++) await newGuestReservation(ingress.baseUrl, tenant)
    await receiver.waitFor("/fast", 6, 10_000)
    const fastDone = Date.now() - started
    console.info(`6 events reached the fast partner in ${fastDone} ms while the slow one hung`)
    expect(fastDone).toBeLessThan(4_000)
    const timedOut = await eventually("slow attempts timed out", async () => {
      const page = await deliveries(ingress.baseUrl, tenant.live_key, slow.id)
      return page.data.deliveries.length === 6 ? page.data.deliveries : undefined
    }, 15_000)
    for (const d of timedOut) expect(d).toMatchObject({ outcome: "failed", error: "timed out after 2000 ms", next_attempt_at: null })
  }, 30_000)

  it("removes a deleted subscription's consumer and its queued retries", async () => {
    const { tenant, sub } = await setup("/deleted", { retry_policy: { max_attempts: 5, initial_backoff_seconds: 60 } })
    receiver.respond("/deleted", () => 503)
    await newGuestReservation(ingress.baseUrl, tenant)
    await receiver.waitFor("/deleted", 1)
    const nc = await connect({ servers: ingress.config.natsUrl })
    try {
      const jsm = await jetstreamManager(nc)
      const stream = webhookStream(ingress.config.namespace)
      const pending = async () => (await jsm.streams.info(stream, { subjects_filter: deliverySubject(ingress.config.namespace, sub.id) })).state.subjects?.[deliverySubject(ingress.config.namespace, sub.id)] ?? 0
      expect(await pending()).toBe(1) // waiting a minute for its retry
      expect((await request(ingress.baseUrl, "DELETE", `/api/v1/webhooks/${sub.id}`, { key: tenant.live_key })).status).toBe(200)
      // The deletion removes the consumer, then purges the subject: wait for both before looking (the purge came a
      // moment after the consumer was gone in one run).
      await eventually("consumer removed and retries purged", async () => {
        const gone = await jsm.consumers.info(stream, subscriptionConsumer(ingress.config.namespace, sub.id)).then(() => false, () => true)
        return gone && (await pending()) === 0 ? true : undefined
      }, 12_000)
      expect(await pending()).toBe(0)
    } finally {
      await nc.close()
    }
  }, 20_000)

  it("every request received verifies, and no secret ever appears in the worker's log lines", () => {
    expect(receiver.received.length).toBeGreaterThan(10)
    for (const r of receiver.received) expectVerifies(r, secrets.get(r.path)!)
    for (const secret of secrets.values()) expect(worker.stderr()).not.toContain(secret)
    expect(worker.stderr()).toContain('"msg":"webhook attempt"')
  })
})
