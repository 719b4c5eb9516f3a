/**
 * The overload phase (issue 30 item 3): new reservations offered open-loop at a multiple of what the platform sustains
 * (its closed-loop single throughput). A platform that sheds answers the excess 503 at once and keeps the writes it
 * lets in fast: every request answered within 2 s, accepted ones with p99 <= 1 s, and every acknowledged write stored.
 */
import type { Agent } from "node:http"
import type postgres from "postgres"
import { exchange, Latencies, openLoop, round, type Job, type LoadResult, type Target } from "./load.ts"
import { ReservationStream, type PayloadOptions } from "./payloads.ts"

export interface OverloadResult {
  readonly offered_per_s: number
  readonly multiple_of_sustained: number
  readonly warm_connections: number
  readonly load: LoadResult
  /** Share of all requests (unfinished included) answered within 2 s of their scheduled instant. */
  readonly answered_within_2s_share: number
  readonly accepted: { readonly count: number; readonly per_s: number; readonly latency_ms: ReturnType<Latencies["summary"]> }
  readonly shed: { readonly count: number; readonly latency_ms: ReturnType<Latencies["summary"]> }
  /** Per second of the schedule: requests, 503s, and the slowest answer (ms) among those scheduled in it. */
  readonly by_second: ReadonlyArray<{ readonly s: number; readonly requests: number; readonly shed: number; readonly max_ms: number }>
  /** Acknowledged (2xx) reservations not in the database afterwards: must be 0. */
  readonly acknowledged_lost: number
  /** 503 answers whose reservation was stored anyway (queued, then not confirmed in time); 0 when all were shed. */
  readonly unavailable_but_stored: number
}

export const overloadPhase = async (o: {
  readonly agent: Agent
  readonly target: Target
  readonly sql: postgres.Sql
  readonly tenantId: string
  readonly payloads: PayloadOptions
  readonly sustainedPerS: number
  readonly multiple: number
  readonly durationMs: number
  readonly drainMs: number
  /** Connections opened (and kept alive) before the flood; 0: from cold. */
  readonly warmConnections: number
  /** Waits for the platform to work off anything queued (so stored reservations are final). */
  readonly drained: () => Promise<unknown>
}): Promise<OverloadResult> => {
  // New reservations only (no updates): whether each one is stored tells what became of its request.
  const stream = new ReservationStream({ ...o.payloads, idPrefix: `${o.payloads.idPrefix}OV`, updateShare: 0 }, { seed: 3 })
  const accepted = new Latencies()
  const shed = new Latencies()
  const acknowledged: Array<string> = []
  const unavailable: Array<string> = []
  let within2s = 0
  const seconds: Array<{ s: number; requests: number; shed: number; max_ms: number }> = []
  const idOf = (job: Job) => (JSON.parse(job.body) as { reservation_id: string }).reservation_id
  const ratePerS = Math.round(o.sustainedPerS * o.multiple)
  // The clients' connections are open before the flood, as partners' keep-alive pools hold them. From cold, the
  // generator opens a connection per request until answers come back (1,000+ in the first seconds), and requests on
  // them waited up to 19 s before the ingress read them, while every answer took it under 1 s by its access log.
  if (o.warmConnections > 0) {
    await Promise.all(Array.from({ length: o.warmConnections }, () => exchange(o.agent, o.target.port, { method: "GET", path: "/healthz", headers: {} })))
  }
  const load = await openLoop({
    agent: o.agent, target: o.target, ratePerS, durationMs: o.durationMs, drainMs: o.drainMs,
    next: () => ({ path: "/api/v1/reservations", body: JSON.stringify(stream.next()), items: 1 }),
    onAnswer: (job, outcome, latencyMs, scheduledMs) => {
      if (outcome.status !== 0 && latencyMs <= 2_000) within2s++
      const second = Math.floor(scheduledMs / 1000)
      const bucket = seconds[second] ??= { s: second, requests: 0, shed: 0, max_ms: 0 }
      bucket.requests++
      if (outcome.status === 503) bucket.shed++
      bucket.max_ms = Math.max(bucket.max_ms, Math.round(latencyMs))
      if (outcome.status >= 200 && outcome.status < 300) {
        accepted.add(latencyMs)
        acknowledged.push(idOf(job))
      } else if (outcome.status === 503) {
        shed.add(latencyMs)
        unavailable.push(idOf(job))
      }
    }
  })
  await o.drained()
  const storedOf = async (ids: ReadonlyArray<string>) => {
    let stored = 0
    for (let i = 0; i < ids.length; i += 5_000) {
      const [row] = await o.sql`SELECT count(DISTINCT external_id)::int AS n FROM reservations
        WHERE tenant_id = ${o.tenantId} AND NOT sandbox AND external_id = ANY(${ids.slice(i, i + 5_000) as Array<string>})`
      stored += (row as { n: number }).n
    }
    return stored
  }
  const acceptedSummary = accepted.summary()
  return {
    offered_per_s: ratePerS,
    multiple_of_sustained: o.multiple,
    warm_connections: o.warmConnections,
    load,
    answered_within_2s_share: round(within2s / Math.max(1, load.requests), 4),
    accepted: { count: acceptedSummary.count, per_s: round(acceptedSummary.count / load.duration_s), latency_ms: acceptedSummary },
    shed: { count: shed.count, latency_ms: shed.summary() },
    by_second: seconds.filter((b) => b !== undefined),
    acknowledged_lost: acknowledged.length - await storedOf(acknowledged),
    unavailable_but_stored: await storedOf(unavailable)
  }
}
