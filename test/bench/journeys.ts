import type { Agent } from "node:http"
import type postgres from "postgres"
import { closedLoop, createContacts, openLoop, round, type Target } from "./load.ts"
import type { CpuMeter } from "./probes.ts"
import { cpuMsPerOperation } from "./report.ts"

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

const createJourney = async (sql: postgres.Sql, tenantId: string, event: string, wait: string) => {
  const [row] = await sql`
    INSERT INTO journey_definitions (tenant_id, sandbox, name, trigger_event_type, trigger_type, status)
    VALUES (${tenantId}, false, ${`Bench ${event}`}, ${event}, 'event', 'active') RETURNING id`
  const definition = { name: `Bench ${event}`, trigger: { type: "event", event, reentry: "always" }, steps: [{ id: "w", type: "wait", duration: wait }, { id: "e", type: "end" }] }
  await sql`INSERT INTO journey_versions (journey_id, version, tenant_id, sandbox, definition) VALUES (${row!.id}, 1, ${tenantId}, false, ${sql.json(definition)})`
  return row!.id as string
}

const countIn = async (sql: postgres.Sql, journeyId: string, states: ReadonlyArray<string>) =>
  Number((await sql`SELECT count(*)::int AS n FROM journey_runs WHERE journey_id = ${journeyId} AND state = ANY(${states as Array<string>})`)[0]!.n)

const until = async (what: () => Promise<boolean>, timeoutMs: number) => {
  const deadline = Date.now() + timeoutMs
  while (!(await what()) && Date.now() < deadline) await sleep(100)
}

/** How late each wake was: from the wait's wake time to the moment the run moved past it (its next step's row). */
const lateness = async (sql: postgres.Sql, journeyId: string, dueAt?: Date) => {
  const [row] = await sql`
    SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY ms) AS p50, percentile_cont(0.99) WITHIN GROUP (ORDER BY ms) AS p99,
      max(ms) AS max, count(*)::int AS n
    FROM (SELECT extract(epoch FROM e.at - coalesce(${dueAt ?? null}::timestamptz, w.reason::timestamptz)) * 1000 AS ms
      FROM journey_runs r
      JOIN journey_run_steps w ON w.run_id = r.id AND w.step_id = 'w'
      JOIN journey_run_steps e ON e.run_id = r.id AND e.step_id = 'e'
      WHERE r.journey_id = ${journeyId}) x`
  return { p50: round(Number(row!.p50)), p99: round(Number(row!.p99)), max: round(Number(row!.max)), n: row!.n as number }
}

/**
 * Journey starts and timer wake-ups through the whole path: POST /api/v1/events → event actor → outbox → signal router
 * → journey actor (run written, wait stored) → timer sweep → wake → run completed.
 * (1) Starts: `total` events for as many contacts as fast as 64 clients send them (closed loop), each starting a run
 *     that waits a day: runs started per second end to end.
 * (2) Wake-ups: those runs all made due at once: wake-ups per second until the last one completes, and their lateness
 *     (queueing behind the burst included).
 * (3) Lateness under load: events offered at half the measured start rate (open loop) for `steady_s` seconds, each
 *     run waiting 2 s: the lateness of their wake-ups while starts keep arriving.
 */
export const journeysPhase = async (o: {
  readonly sql: postgres.Sql
  readonly agent: Agent
  readonly target: Target
  readonly tenantId: string
  readonly total: number
  readonly concurrency: number
  readonly steadyS: number
  readonly runId: string
  /** CPU by process while the starts run (the event accepted to its run stored): what a start costs, and where. */
  readonly meter: CpuMeter
}) => {
  const contactIds = await createContacts(o.agent, o.target, o.total, { phonePrefix: "+3468", label: "Journey", runId: o.runId })
  const burst = await createJourney(o.sql, o.tenantId, "bench.burst", "P1D")
  const steady = await createJourney(o.sql, o.tenantId, "bench.steady", "PT2S")
  // The router reads which tenants listen once per batch: give a fresh journey a moment before the load.
  await sleep(500)
  const eventJob = (event: string, i: number) =>
    ({ path: "/api/v1/events", body: JSON.stringify({ event_type: event, contact_id: contactIds[i % contactIds.length], payload: {} }), items: 1 })

  // (1) starts at capacity
  let next = 0
  const startedAt = Date.now()
  const cpu = o.meter.begin()
  const starts = await closedLoop({
    agent: o.agent, target: o.target, concurrency: o.concurrency,
    next: () => (next >= contactIds.length ? undefined : eventJob("bench.burst", next++))
  })
  // Only the accepted events start runs: a refusal (503 while the ingress sheds) is reported with its status below,
  // and waiting for every contact's run would wait out the timeout for the refused ones.
  const accepted = starts.statuses["201"] ?? 0
  await until(async () => (await countIn(o.sql, burst, ["waiting"])) >= accepted, 300_000)
  const [span] = await o.sql`SELECT max(started_at) AS last FROM journey_runs WHERE journey_id = ${burst}`
  const startsPerS = accepted / ((new Date(span!.last as Date).getTime() - startedAt) / 1000)
  const startsCpu = cpu.end()

  // (2) every one of them due at once
  const [due] = await o.sql`UPDATE journey_runs SET wake_at = now() WHERE journey_id = ${burst} AND state = 'waiting' RETURNING now() AS at`
  const dueAt = due!.at as Date
  await until(async () => (await countIn(o.sql, burst, ["completed"])) >= accepted, 300_000)
  const [last] = await o.sql`SELECT max(ended_at) AS last FROM journey_runs WHERE journey_id = ${burst}`
  const wakesPerS = accepted / ((new Date(last!.last as Date).getTime() - dueAt.getTime()) / 1000)

  // (3) wake-ups while starts keep arriving at half the start capacity
  const rate = Math.max(5, Math.round(startsPerS / 2))
  let k = 0
  const offered = await openLoop({
    agent: o.agent, target: o.target, ratePerS: rate, durationMs: o.steadyS * 1000, drainMs: 10_000,
    next: () => eventJob("bench.steady", k++)
  })
  const steadyRuns = offered.statuses["201"] ?? 0
  await until(async () => (await countIn(o.sql, steady, ["completed"])) >= steadyRuns, 120_000)
  return {
    runs: contactIds.length,
    starts: { events_accepted: accepted, statuses: starts.statuses, api_latency_ms: starts.latency_ms, journey_starts_per_s: round(startsPerS), cpu: startsCpu, cpu_ms_per_start: cpuMsPerOperation(startsCpu.cores, startsPerS) },
    burst: { wakeups_per_s: round(wakesPerS), lateness_ms: await lateness(o.sql, burst, dueAt) },
    steady: { offered_per_s: rate, runs: steadyRuns, statuses: offered.statuses, api_latency_ms: offered.latency_ms, wake_lateness_ms: await lateness(o.sql, steady) }
  }
}
