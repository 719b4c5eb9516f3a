import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { testSql, type RunningPlatform, type TestTenant } from "../support/platform.ts"
import { type LoyaltyIngress, startLoyaltyIngress } from "./loyaltyIngress.ts"
import { killOneEvery, spawnWorker, type WorkerProcess } from "../support/processes.ts"
import { FULL } from "./load.ts"

// Three workers, one SIGKILLed every second, while clients send a burst of earns, redemptions and credit holds (each with
// its external_reference_id, retried on 503 or a broken connection until a definite answer). Every operation answered
// 2xx must be applied exactly once (one ledger row, one hold), every refused one not at all, and every member's ledger
// must add up.

let ingress: RunningPlatform
let tenant: TestTenant
let loyalty: LoyaltyIngress
const sql = testSql()

beforeAll(async () => {
  loyalty = await startLoyaltyIngress("loyalty", { replyTimeoutMs: 3_000, partitions: 8, leaseTtlMs: 3_000, ackWaitMs: 3_000 })
  ;({ ingress, tenant } = loyalty)
})
afterAll(async () => {
  await ingress?.stop()
  await sql.end()
})

const surely = (path: string, body: unknown) => loyalty.surely("POST", path, body)

describe("loyalty with workers killed under a burst of earns, redeems and holds", () => {
  it("applies every acknowledged operation exactly once and every refused one not at all; every member's ledger adds up", async () => {
    const memberCount = FULL ? 200 : 30
    const total = FULL ? 5_000 : 600
    const workers: Array<WorkerProcess> = await Promise.all([0, 1, 2].map(() => spawnWorker(ingress.config)))
    const run = Date.now().toString(36)
    const members: Array<string> = []
    for (let i = 0; i < memberCount; i++) {
      const res = await surely("/api/v1/loyalty/enroll", { email: `chaos.${run}.${i}@gmail.com`, loyalty_balance: 1000 })
      expect([200, 201]).toContain(res.status)
      members.push(res.body.data.member_id)
    }
    const killer = killOneEvery(workers, 2_000, () => spawnWorker(ingress.config))
    type Op = { kind: "earn" | "redeem" | "hold"; member: string; key: string; points: number; status?: number; code?: string }
    const ops: Array<Op> = Array.from({ length: total }, (_, i) => ({
      kind: (["earn", "redeem", "hold"] as const)[i % 3]!, member: members[Math.floor(Math.random() * memberCount)]!, key: `chaos-${run}-${i}`, points: 1 + Math.floor(Math.random() * 200)
    }))
    let next = 0
    const started = Date.now()
    await Promise.all(Array.from({ length: 24 }, async () => {
      for (let i = next++; i < ops.length; i = next++) {
        const op = ops[i]!
        const body = { member_id: op.member, points: op.points, external_reference_id: op.key }
        const res = op.kind === "earn" ? await surely("/api/v1/loyalty/points", body)
          : op.kind === "redeem" ? await surely("/api/v1/loyalty/redeem", body)
          : await surely("/api/v1/loyalty/credit/hold", { ...body, reservation_id: `RES-${op.key}`, ttl_seconds: 3600 })
        op.status = res.status
        op.code = res.body?.error?.code
      }
    }))
    await killer.stop()
    const kills = killer.kills()
    const seconds = (Date.now() - started) / 1000
    try {
      const applied = ops.filter((o) => o.status === 200 || o.status === 201)
      const refused = ops.filter((o) => o.status === 409)
      console.log(JSON.stringify({ chaos: "loyalty", members: memberCount, operations: total, seconds, kills, retried: loyalty.retried(), applied: applied.length, refused: refused.length }))
      expect(ops.filter((o) => !applied.includes(o) && !refused.includes(o)).map((o) => [o.kind, o.status, o.code])).toEqual([])
      expect(refused.every((o) => o.code === "INSUFFICIENT_POINTS")).toBe(true)
      expect(kills).toBeGreaterThanOrEqual(FULL ? 10 : 2)
      // Exactly once: one ledger row per applied earn or redeem key, one hold per applied hold key; none for a refused one.
      const entries = await sql`SELECT op, external_reference_id AS k, count(*)::int AS n FROM loyalty_entries
        WHERE tenant_id = ${tenant.tenant_id} AND external_reference_id LIKE ${`chaos-${run}-%`} GROUP BY op, external_reference_id`
      const holds = await sql`SELECT external_reference_id AS k, count(*)::int AS n FROM loyalty_holds
        WHERE tenant_id = ${tenant.tenant_id} AND external_reference_id LIKE ${`chaos-${run}-%`} GROUP BY external_reference_id`
      const stored = new Map([...entries.map((r) => [`${r.op}:${r.k}`, r.n as number] as const), ...holds.map((r) => [`hold:${r.k}`, r.n as number] as const)])
      const wrong = ops.filter((o) => (stored.get(`${o.kind}:${o.key}`) ?? 0) !== (applied.includes(o) ? 1 : 0)).map((o) => [o.kind, o.key, o.status, stored.get(`${o.kind}:${o.key}`)])
      expect(wrong).toEqual([])
      // Every member's balance and held points are what the answers said; Σ lots = Σ ledger = stored balances.
      const expected = new Map(members.map((m) => [m, { balance: 1000, held: 0 }]))
      for (const o of applied) {
        const e = expected.get(o.member)!
        expected.set(o.member, o.kind === "hold" ? { ...e, held: e.held + o.points } : { ...e, balance: e.balance + (o.kind === "earn" ? o.points : -o.points) })
      }
      const rows = await sql`
        SELECT m.member_id, m.balance_active::int AS balance, m.balance_held::int AS held,
          (SELECT coalesce(sum(points_remaining), 0)::int FROM loyalty_lots WHERE member_id = m.member_id AND status = 'active') AS lots,
          (SELECT coalesce(sum(points), 0)::int FROM loyalty_entries WHERE member_id = m.member_id) AS ledger,
          (SELECT coalesce(sum(points), 0)::int FROM loyalty_holds WHERE member_id = m.member_id AND status = 'active') AS holds
        FROM loyalty_members m WHERE m.member_id = ANY(${members}::uuid[])`
      for (const r of rows) {
        expect({ balance: r.balance, held: r.held }).toEqual(expected.get(r.member_id as string))
        expect([r.lots, r.ledger, r.holds]).toEqual([r.balance, r.balance, r.held])
      }
    } finally {
      await Promise.all(workers.map((w) => w.stop()))
    }
  })
})
