import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { reservation } from "../support/fixtures.ts"
import { outboxMessages } from "../support/outbox.ts"
import { createTenant, startPlatform, testSql, type RunningPlatform, type TestTenant } from "../support/platform.ts"
import { spawnWorker, type WorkerProcess } from "../support/processes.ts"
import { cdp, untilDone } from "../cdp/support.ts"
import { FULL } from "./load.ts"

// A CDP bulk job while the worker running it is SIGKILLed midway: another worker takes the job over once the lease
// lapses and finishes it; every reservation is stored once, booked once and checked out once.
let ingress: RunningPlatform
let tenant: TestTenant
const sql = testSql()

beforeAll(async () => {
  ingress = await startPlatform("chaos_cdp", { role: "ingress", overrides: { partitions: 4, leaseTtlMs: 2_000, ackWaitMs: 2_000, replyTimeoutMs: 15_000 } })
  tenant = await createTenant("chaos-cdp")
})
afterAll(async () => {
  await ingress?.stop()
  await sql.end()
})

describe("a CDP bulk job with its worker SIGKILLed midway", () => {
  it("completes, each reservation exactly once", async () => {
    const size = FULL ? 5_000 : 1_000
    const run = Date.now().toString(36)
    const items = Array.from({ length: size }, (_, i) =>
      reservation({ hotel_code: tenant.hotel_code }, {
        reservation_id: `cdp-${run}-${i}`, cart_id: `cart-${run}-${i}`,
        guests: [{ first_name: "Ana", email: `cdp-${run}-${i}@hotel-guests.net`, is_holder: true }]
      }))
    const workers: Array<WorkerProcess> = await Promise.all([0, 1].map(() => spawnWorker(ingress.config)))
    const api = cdp(ingress.baseUrl, tenant.live_key)
    let killedPid: number | undefined
    try {
      const accepted = await api.bulk(items)
      expect(accepted.status, JSON.stringify(accepted.body)).toBe(202)
      const id = accepted.body.data.batch_id as string
      // Midway: a quarter processed, then the owner dies.
      for (;;) {
        const status = (await api.status(id)).body.data
        if (status.processed >= size / 4) break
        expect(status.status).not.toBe("completed")
        await new Promise((r) => setTimeout(r, 100))
      }
      const [job] = await sql`SELECT owner FROM cdp_batches WHERE id = ${id}`
      const owner = workers.find((w) => String(job!.owner).includes(`-${w.child.pid}-`))
      expect(owner, `owner ${job!.owner}`).toBeDefined()
      killedPid = owner!.child.pid
      owner!.child.kill("SIGKILL")
      await owner!.exited
      const atKill = (await api.status(id)).body.data.processed
      expect(atKill).toBeLessThan(size)
      workers.push(await spawnWorker(ingress.config))
      const done = await untilDone(() => api.status(id), 300_000)
      expect(done).toMatchObject({ status: "completed", total: size, processed: size, succeeded: size, failed: 0, errors: [] })
      const [after] = await sql`SELECT owner FROM cdp_batches WHERE id = ${id}`
      expect(after!.owner).toBeNull()
      console.log(JSON.stringify({ cdp_chaos: { size, killed_at: atKill, killed_pid: killedPid } }))
    } finally {
      await Promise.all(workers.map((w) => w.stop()))
    }
    const stored = await sql`SELECT count(*)::int AS n FROM reservations WHERE tenant_id = ${tenant.tenant_id} AND external_id LIKE ${`cdp-${run}-%`}`
    expect(stored[0]!.n).toBe(size)
    const contacts = await sql`SELECT count(*)::int AS n FROM contacts WHERE tenant_id = ${tenant.tenant_id} AND email LIKE ${`cdp-${run}-%`}`
    expect(contacts[0]!.n).toBe(size)
    const outbox = await outboxMessages(ingress.config.namespace, tenant.tenant_id)
    for (const type of ["booking.created", "checkout.completed"]) {
      const published = outbox.filter((m) => m.subject.endsWith(`evt.${type}`))
      expect(new Set(published.map((m) => m.id)).size, type).toBe(published.length)
      expect(published.length, type).toBe(size)
    }
    const checkouts = await sql`SELECT count(*)::int AS n FROM cdp_checkouts WHERE tenant_id = ${tenant.tenant_id}`
    expect(checkouts[0]!.n).toBe(size)
  })
})
