import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { testSql, type RunningPlatform, type TestTenant } from "../support/platform.ts"
import { type LoyaltyIngress, startLoyaltyIngress } from "./loyaltyIngress.ts"
import { spawnWorker, workerIdOf } from "../support/processes.ts"

// A zombie owner of loyalty members' partitions: worker A is SIGSTOPped in the middle of a burst of redemptions (messages
// fetched, transactions open), worker B takes its partitions over once A's leases expire, then A is resumed. A's late
// writes are fenced (its epoch is stale), so no redemption is applied twice and every member's ledger adds up.

let ingress: RunningPlatform
let tenant: TestTenant
let loyalty: LoyaltyIngress
const sql = testSql()

beforeAll(async () => {
  loyalty = await startLoyaltyIngress("loyalty_zombie", { replyTimeoutMs: 20_000, partitions: 2, leaseTtlMs: 3_000, ackWaitMs: 3_000 })
  ;({ ingress, tenant } = loyalty)
})
afterAll(async () => {
  await ingress?.stop()
  await sql.end()
})

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
const post = (path: string, body: unknown) => loyalty.send("POST", path, body)

describe("a loyalty worker paused past its lease (a zombie)", () => {
  it("applies no redemption twice: the resumed zombie is fenced, the new owner applies the rest once, every ledger adds up", async () => {
    const a = await spawnWorker(ingress.config)
    const aId = workerIdOf(a.stderr())!
    expect(aId).toBeDefined()
    const run = Date.now().toString(36)
    const members: Array<string> = []
    for (let i = 0; i < 10; i++) {
      const res = await post("/api/v1/loyalty/enroll", { email: `zombie.${run}.${i}@gmail.com`, loyalty_balance: 10_000 })
      expect([200, 201], JSON.stringify(res.body)).toContain(res.status)
      members.push(res.body.data.member_id)
    }
    const aLeases = await sql`SELECT partition, epoch FROM partition_leases WHERE namespace = ${ingress.config.namespace} AND owner = ${aId} AND actor = 'loyalty'`
    expect(aLeases.length).toBe(2)

    // A burst of redemptions, and A frozen in the middle of it.
    const ops = Array.from({ length: 300 }, (_, i) => ({ member: members[i % 10]!, key: `zombie-${run}-${i}`, points: 1 + (i % 7) }))
    const burst = ops.map((o) => post("/api/v1/loyalty/redeem", { member_id: o.member, points: o.points, external_reference_id: o.key }))
    for (let i = 0; i < 500; i++) {
      const [row] = await sql`SELECT count(*)::int AS n FROM loyalty_entries WHERE tenant_id = ${tenant.tenant_id} AND op = 'redeem'`
      if (row!.n >= 30) break
      await sleep(5)
    }
    a.child.kill("SIGSTOP")
    const committedByA = (await sql`SELECT count(*)::int AS n FROM loyalty_entries WHERE tenant_id = ${tenant.tenant_id} AND op = 'redeem'`)[0]!.n as number
    const b = await spawnWorker(ingress.config)
    try {
      const bId = workerIdOf(b.stderr())!
      for (let i = 0; i < 150; i++) {
        const [row] = await sql`SELECT count(*)::int AS n FROM partition_leases WHERE namespace = ${ingress.config.namespace} AND owner = ${bId} AND actor = 'loyalty'`
        if (row!.n === 2) break
        await sleep(200)
      }
      const answers = await Promise.all(burst)
      const statuses = answers.reduce<Record<number, number>>((m, r) => ({ ...m, [r.status]: (m[r.status] ?? 0) + 1 }), {})
      expect(Object.keys(statuses).every((s) => ["200", "503", "0"].includes(s)), JSON.stringify(statuses)).toBe(true)
      // Unconfirmed ones are retried with their key until answered: applied (by B) or replayed, never twice.
      for (const [i, r] of answers.entries()) {
        let res = r
        for (let t = 0; res.status !== 200 && t < 100; t++) {
          await sleep(200)
          res = await post("/api/v1/loyalty/redeem", { member_id: ops[i]!.member, points: ops[i]!.points, external_reference_id: ops[i]!.key })
        }
        expect(res.status, JSON.stringify(res.body)).toBe(200)
      }
      const committedBeforeResume = (await sql`SELECT count(*)::int AS n FROM loyalty_entries WHERE tenant_id = ${tenant.tenant_id} AND op = 'redeem'`)[0]!.n
      a.child.kill("SIGCONT")
      await sleep(6_000) // A wakes, finds its leases gone and its transactions' epoch stale
      const entries = await sql`SELECT external_reference_id AS k, count(*)::int AS n FROM loyalty_entries
        WHERE tenant_id = ${tenant.tenant_id} AND op = 'redeem' GROUP BY external_reference_id`
      expect(entries.length).toBe(300)
      expect(entries.filter((r) => r.n !== 1)).toEqual([])
      expect((await sql`SELECT count(*)::int AS n FROM loyalty_entries WHERE tenant_id = ${tenant.tenant_id} AND op = 'redeem'`)[0]!.n).toBe(committedBeforeResume)
      const spent = new Map<string, number>()
      for (const o of ops) spent.set(o.member, (spent.get(o.member) ?? 0) + o.points)
      const rows = await sql`
        SELECT m.member_id, m.balance_active::int AS balance,
          (SELECT coalesce(sum(points_remaining), 0)::int FROM loyalty_lots WHERE member_id = m.member_id AND status = 'active') AS lots,
          (SELECT coalesce(sum(points), 0)::int FROM loyalty_entries WHERE member_id = m.member_id) AS ledger
        FROM loyalty_members m WHERE m.member_id = ANY(${members}::uuid[])`
      for (const r of rows) expect([r.balance, r.lots, r.ledger]).toEqual(Array(3).fill(10_000 - spent.get(r.member_id as string)!))
      console.log(JSON.stringify({ chaos: "loyalty-zombie", committedByA, statuses, committedBeforeResume }))
      expect(committedByA).toBeGreaterThan(0)
      expect(committedByA).toBeLessThan(300)
      expect(a.stderr()).toMatch(/lease (lost|not renewed|lapsed)/)
    } finally {
      a.child.kill("SIGCONT")
      await Promise.all([a.stop(), b.stop()])
    }
  })
})
