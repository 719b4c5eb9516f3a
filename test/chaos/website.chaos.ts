import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { createJourney } from "../support/journeys.ts"
import { useEncryptionKey } from "../support/messaging.ts"
import { outboxMessages } from "../support/outbox.ts"
import { createTenant, startPlatform, testSql, type RunningPlatform, type TestTenant } from "../support/platform.ts"
import { killOneEvery, spawnWorker, type WorkerProcess } from "../support/processes.ts"
import { createSource, serverPost, type Source } from "../website/support.ts"
import { FULL } from "./load.ts"

// Website events while workers are SIGKILLed: every accepted event is stored (a journey awaits them all), once, and
// published once; a request not confirmed (500 internal_error, 503, a dropped connection) is retried with the same
// bytes, its idempotency keys making the retry a duplicate of what was already applied.
useEncryptionKey()
let ingress: RunningPlatform
let tenant: TestTenant
let source: Source
const sql = testSql()

beforeAll(async () => {
  ingress = await startPlatform("chaos_website", { role: "ingress", overrides: { partitions: 4, leaseTtlMs: 2_000, ackWaitMs: 2_000, replyTimeoutMs: 15_000 } })
  tenant = await createTenant("chaos-website")
  source = await createSource(ingress.baseUrl, tenant.live_key)
  await sql`UPDATE website_sources SET rate_limit_per_minute = 1000000 WHERE id = ${source.source_id}`
  await createJourney(sql, tenant, { name: "Chaos carts", trigger: { type: "event", event: "cart.abandoned" }, steps: [{ id: "w", type: "wait", duration: "P1D" }] })
})
afterAll(async () => {
  await ingress?.stop()
  await sql.end()
})

describe("website events with workers SIGKILLed during a burst", () => {
  it("every accepted event_id is stored and published exactly once", async () => {
    const batches = FULL ? 500 : 60
    const size = 10
    const run = Date.now().toString(36)
    const workers: Array<WorkerProcess> = await Promise.all([0, 1].map(() => spawnWorker(ingress.config)))
    const killer = killOneEvery(workers, 1_000, () => spawnWorker(ingress.config))
    const accepted = new Map<string, string>()
    let retries = 0
    let next = 0
    try {
      await Promise.all(Array.from({ length: 8 }, async () => {
        // At least `batches`, and on until three workers died during the burst (a respawn takes seconds here).
        while ((next < batches || killer.kills() < 3) && next < 20 * batches) {
          const b = next++
          const body = {
            events: Array.from({ length: size }, (_, k) => {
              const i = b * size + k
              return { event: "cart.abandoned", idempotency_key: `chaos-${run}-${i}`, contact: { email: `chaos-${run}-${i}@hotel-guests.net` }, context: { cart_id: `c-${run}-${i}`, stage: "payment" } }
            })
          }
          for (let attempt = 1; ; attempt++) {
            const res = await serverPost(ingress.baseUrl, source.server_key, body).catch(() => ({ status: 0, body: undefined as any }))
            if (res.status === 202) {
              for (const r of res.body.results) {
                expect(["accepted", "duplicate"]).toContain(r.status)
                const key = body.events[r.index]!.idempotency_key
                const before = accepted.get(key)
                if (before !== undefined) expect(r.event_id).toBe(before)
                accepted.set(key, r.event_id)
              }
              break
            }
            expect([0, 500, 503], JSON.stringify(res.body)).toContain(res.status)
            expect(attempt).toBeLessThan(60)
            retries++
            await new Promise((r) => setTimeout(r, 500))
          }
        }
      }))
    } finally {
      await killer.stop()
      await Promise.all(workers.map((w) => w.stop()))
    }
    const sent = next
    expect(killer.kills()).toBeGreaterThanOrEqual(3)
    expect(accepted.size).toBe(sent * size)
    const stored = await sql`SELECT id, idempotency_key FROM website_events WHERE source_id = ${source.source_id}`
    expect(stored.length).toBe(sent * size)
    const byKey = new Map(stored.map((r) => [r.idempotency_key as string, r.id as string]))
    for (const [key, id] of accepted) expect(byKey.get(key), key).toBe(id)
    const published = (await outboxMessages(ingress.config.namespace, tenant.tenant_id)).filter((m) => m.subject.endsWith("evt.cart.abandoned"))
    expect(new Set(published.map((m) => m.id)).size).toBe(published.length)
    expect(published.length).toBe(sent * size)
    console.log(JSON.stringify({ website_chaos: { events: sent * size, kills: killer.kills(), retries } }))
  })
})
