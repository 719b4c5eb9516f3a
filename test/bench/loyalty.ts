import type { Agent } from "node:http"
import type postgres from "postgres"
import { Latencies, post, round, type Target } from "./load.ts"
import type { CpuMeter } from "./probes.ts"
import { cpuMsPerOperation } from "./report.ts"

/**
 * Loyalty writes per second: earns and redemptions mixed half and half over `members` members (seeded in the database
 * with 10,000 points each, so a redemption is rarely refused), from `concurrency` clients, each write with its own
 * external_reference_id: POST /points and /redeem → ingress resolves the member → member actor → ledger. Reported:
 * writes answered per second, the latency of each kind (p50 / p99), refusals, and the ledger check (Σ lots = balances).
 */
export const loyaltyPhase = async (o: {
  readonly sql: postgres.Sql
  readonly agent: Agent
  readonly target: Target
  readonly tenantId: string
  readonly members: number
  readonly operations: number
  readonly concurrency: number
  readonly runId: string
  /** CPU by process while the writes run: what a write costs, and where. */
  readonly meter: CpuMeter
}) => {
  const program = await fetch(`http://${o.target.host}:${o.target.port}/api/v1/loyalty/program`, {
    method: "PUT",
    headers: { authorization: `Bearer ${o.target.key}`, "content-type": "application/json" },
    body: JSON.stringify({ currency: "EUR", points_per_unit: 10, point_value: 0.01 })
  })
  if (program.status !== 200) throw new Error(`loyalty programme: ${program.status}`)
  // Members seeded straight into the ledger (one opening lot and entry each): the phase measures writes, not enrolment.
  const seeded = await o.sql`
    WITH m AS (
      INSERT INTO loyalty_members (member_id, tenant_id, sandbox, email, balance_active)
      SELECT gen_random_uuid(), ${o.tenantId}, false, 'bench' || ${o.runId} || '.' || i || '@gmail.com', 10000 FROM generate_series(1, ${o.members}) i
      RETURNING member_id
    ), l AS (
      INSERT INTO loyalty_lots (lot_id, member_id, tenant_id, sandbox, status, points_original, points_remaining, created_at, seq)
      SELECT gen_random_uuid(), member_id, ${o.tenantId}, false, 'active', 10000, 10000, now(), 1 FROM m RETURNING lot_id, member_id
    ), e AS (
      INSERT INTO loyalty_entries (entry_id, member_id, tenant_id, sandbox, seq, kind, status, points, balance_after, pending_after, created_at)
      SELECT gen_random_uuid(), member_id, ${o.tenantId}, false, 1, 'opening_balance', 'confirmed', 10000, 10000, 0, now() FROM l RETURNING entry_id, member_id
    )
    INSERT INTO loyalty_entry_lots (entry_id, lot_id, tenant_id, points)
    SELECT e.entry_id, l.lot_id, ${o.tenantId}, 10000 FROM e JOIN l USING (member_id) RETURNING lot_id`
  const ids = (await o.sql`SELECT member_id FROM loyalty_members WHERE tenant_id = ${o.tenantId}`).map((r) => r.member_id as string)
  const latency = { earn: new Latencies(), redeem: new Latencies() }
  const statuses: Record<string, number> = {}
  let next = 0
  let ok = 0
  const started = performance.now()
  const cpu = o.meter.begin()
  await Promise.all(Array.from({ length: o.concurrency }, async () => {
    for (let i = next++; i < o.operations; i = next++) {
      const kind = i % 2 === 0 ? "earn" : "redeem"
      const body = JSON.stringify({ member_id: ids[Math.floor(Math.random() * ids.length)], points: 1 + Math.floor(Math.random() * 100), external_reference_id: `bench-${o.runId}-${i}` })
      const t0 = performance.now()
      const res = await post(o.agent, o.target, kind === "earn" ? "/api/v1/loyalty/points" : "/api/v1/loyalty/redeem", body)
      latency[kind].add(performance.now() - t0)
      statuses[`${kind} ${res.status}`] = (statuses[`${kind} ${res.status}`] ?? 0) + 1
      if (res.status === 200) ok++
    }
  }))
  const seconds = (performance.now() - started) / 1000
  const writesCpu = cpu.end()
  const [check] = await o.sql`
    SELECT count(*) FILTER (WHERE m.balance_active <> coalesce(l.s, 0))::int AS mismatched, min(m.balance_active)::int AS lowest
    FROM loyalty_members m LEFT JOIN (SELECT member_id, sum(points_remaining) AS s FROM loyalty_lots WHERE status = 'active' GROUP BY member_id) l USING (member_id)
    WHERE m.tenant_id = ${o.tenantId}`
  return {
    members: seeded.length,
    operations: o.operations,
    concurrency: o.concurrency,
    duration_s: round(seconds),
    writes_ok: ok,
    writes_per_s: round(ok / seconds),
    cpu: writesCpu,
    cpu_ms_per_write: cpuMsPerOperation(writesCpu.cores, ok / seconds),
    statuses,
    earn_latency_ms: latency.earn.summary(),
    redeem_latency_ms: latency.redeem.summary(),
    ledger_mismatched_members: check!.mismatched as number,
    lowest_balance: check!.lowest as number
  }
}
