import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { ActorNames } from "../../actors/registry.ts"
import { phone } from "../support/fixtures.ts"
import { createKey, createTenant, post, startPlatform, testSql, type RunningPlatform, type TestTenant } from "../support/platform.ts"
import { spawnWorker, workerIdOf } from "../support/processes.ts"

// Load shedding off here: the burst's 300 requests are each expected applied once (a 503 being "not confirmed in
// time", applied by the next owner), where a shed request would be a 503 with nothing stored. Shedding has its own
// fault test (overload.chaos.ts).
process.env.GEP_ADMISSION_MIN = "20000"

let ingress: RunningPlatform
let tenant: TestTenant
const sql = testSql()

beforeAll(async () => {
  ingress = await startPlatform("chaos_fence", { role: "ingress", overrides: { replyTimeoutMs: 20_000, partitions: 2, leaseTtlMs: 3_000, ackWaitMs: 3_000 } })
  tenant = await createTenant("chaos-fence")
})
afterAll(async () => {
  await ingress?.stop()
  await sql.end()
})

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

describe("a worker paused past its lease", () => {
  it("commits nothing under its old lease after another worker took over", async () => {
    const key = (await createKey(tenant.tenant_id, ["*"], { rate: 10_000_000 })).key
    const a = await spawnWorker(ingress.config)
    const aId = workerIdOf(a.stderr())!
    expect(aId).toBeDefined()
    let aEpochs = await sql`SELECT actor, partition, epoch FROM partition_leases WHERE namespace = ${ingress.config.namespace} AND owner = ${aId}`
    // Every partition of every actor type (2 partitions each), all A's.
    const leases = ActorNames.length * 2
    for (let i = 0; i < 100 && aEpochs.length < leases; i++) {
      await sleep(100)
      aEpochs = await sql`SELECT actor, partition, epoch FROM partition_leases WHERE namespace = ${ingress.config.namespace} AND owner = ${aId}`
    }
    expect(aEpochs.length).toBe(leases)

    // A burst, and A frozen in the middle of it (messages fetched, transactions open).
    const burst = Array.from({ length: 300 }, (_, i) => post(ingress.baseUrl, "/api/v1/reservations", key, {
      reservation_id: `fence-${i % 60}`, hotel_code: tenant.hotel_code, check_in: "2026-12-01", check_out: "2026-12-02", amount: i,
      guests: [{ first_name: "F", phone: phone(700_000 + (i % 60)) }]
    }))
    // Freeze A once it has applied part of the burst: the rest is fetched, queued or mid-transaction.
    for (let i = 0; i < 500; i++) {
      const [row] = await sql`SELECT count(*)::int AS n FROM inbox WHERE owner = ${aId}`
      if (row!.n >= 30) break
      await sleep(5)
    }
    a.child.kill("SIGSTOP")
    const frozenAt = Date.now()

    const b = await spawnWorker(ingress.config)
    try {
      const bId = workerIdOf(b.stderr())!
      // B takes every partition once A's leases expire (and PostgreSQL ends A's idle transactions).
      for (let i = 0; i < 100; i++) {
        const [row] = await sql`SELECT count(*)::int AS n FROM partition_leases WHERE namespace = ${ingress.config.namespace} AND owner = ${bId}`
        if (row!.n === 8) break
        await sleep(200)
      }
      const tookOverAfter = Date.now() - frozenAt
      const answers = await Promise.all(burst)
      // 503 = not confirmed in time (the takeover takes a lease TTL plus PostgreSQL ending A's frozen transactions);
      // the envelope is in the stream all the same and B applies it. Anything else would be a bug.
      const statuses = answers.reduce<Record<number, number>>((m, r) => ({ ...m, [r.status]: (m[r.status] ?? 0) + 1 }), {})
      expect(Object.keys(statuses).every((s) => ["200", "201", "503"].includes(s)), JSON.stringify(statuses)).toBe(true)
      for (let i = 0; i < 150; i++) {
        const [row] = await sql`SELECT count(*)::int AS n FROM inbox WHERE tenant_id = ${tenant.tenant_id}`
        if (row!.n >= 300) break
        await sleep(200)
      }
      const oldEpochRows = async () => (await sql`
        SELECT count(*)::int AS n FROM inbox i
        WHERE i.owner = ${aId} AND i.epoch = ANY(${[...new Set(aEpochs.map((e) => Number(e.epoch)))]}::bigint[])`)[0]!.n as number
      const beforeResume = await oldEpochRows()

      a.child.kill("SIGCONT")
      await sleep(6_000) // A wakes, finds its leases gone, abandons; it may rejoin and take partitions at new epochs
      expect(await oldEpochRows()).toBe(beforeResume)
      const [state] = await sql`SELECT count(*)::int AS n, sum(version)::int AS versions FROM reservations WHERE tenant_id = ${tenant.tenant_id}`
      expect(state).toEqual({ n: 60, versions: 300 }) // each of the 300 updates applied exactly once
      console.log(JSON.stringify({ chaos: "fencing", tookOverAfterMs: tookOverAfter, committedByABeforeFreeze: beforeResume, statuses }))
      expect(beforeResume).toBeGreaterThan(0)
      expect(beforeResume).toBeLessThan(300)
      expect(a.stderr()).toMatch(/lease (lost|not renewed|lapsed)/)
      expect(a.child.exitCode).toBeNull() // A survived its frozen, server-ended connections
    } finally {
      a.child.kill("SIGCONT")
      const codes = await Promise.all([a.stop(), b.stop()].map((p, i) => p.then(() => [a, b][i]!.child.exitCode)))
      if (process.env.CHAOS_LOG_DIR) {
        const fs = await import("node:fs")
        fs.writeFileSync(`${process.env.CHAOS_LOG_DIR}/fence-a.log`, a.stderr())
        fs.writeFileSync(`${process.env.CHAOS_LOG_DIR}/fence-b.log`, b.stderr())
      }
      expect(codes).toEqual([0, 0]) // both drain and exit 0 on SIGTERM, the thawed one included
    }
  })
})
