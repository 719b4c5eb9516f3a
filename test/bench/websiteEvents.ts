import type { Agent } from "node:http"
import { exchange, Latencies, type PlatformPhase, round } from "./load.ts"

// Website events: accepted events per second through POST /api/v1/website-events, (1) with the server key in batches
// of 50 and (2) as single browser-key beacons (text/plain, ?key=, an allowed Origin, one visitor per user agent so the
// per-visitor limit does not bind). An active cart.abandoned journey listens, so every identified event takes the
// whole path: contact created, event stored, evt published, a journey run started.

const ORIGIN = "https://bench.hotel-guests.net"

const send = (agent: Agent, port: number, path: string, body: string, headers: Record<string, string>) =>
  exchange(agent, port, { method: "POST", path, headers, body })

interface Job {
  readonly path: string
  readonly body: string
  readonly headers: Record<string, string>
}

const closed = async (agent: Agent, port: number, concurrency: number, durationMs: number, next: () => Job) => {
  const latencies = new Latencies()
  const statuses: Record<string, number> = {}
  let accepted = 0
  let rejected = 0
  const start = performance.now()
  const client = async () => {
    while (performance.now() - start < durationMs) {
      const job = next()
      const t0 = performance.now()
      const res = await send(agent, port, job.path, job.body, job.headers)
      latencies.add(performance.now() - t0)
      statuses[res.status] = (statuses[res.status] ?? 0) + 1
      if (res.status === 202) {
        const r = JSON.parse(res.body) as { accepted: number; rejected: number }
        accepted += r.accepted
        rejected += r.rejected
      }
    }
  }
  await Promise.all(Array.from({ length: concurrency }, client))
  const seconds = (performance.now() - start) / 1000
  return { seconds: round(seconds), requests: latencies.count, statuses, accepted, rejected, events_per_s: round(accepted / seconds), latency_ms: latencies.summary() }
}

export const websiteEventsPhase = async (o: PlatformPhase) => {
  const created = await fetch(`${o.baseUrl}/api/v1/website-sources`, {
    method: "POST", headers: { authorization: `Bearer ${o.coreKey}`, "content-type": "application/json" },
    body: JSON.stringify({ name: `Bench ${o.runId}`, allowed_origins: [ORIGIN] })
  })
  const source = await created.json() as { source_id: string; server_key: string; browser_key: string }
  // The bench measures the platform, not the source's limit (600/min by default).
  await o.sql`UPDATE website_sources SET rate_limit_per_minute = 1000000 WHERE id = ${source.source_id}`
  const [journey] = await o.sql`
    INSERT INTO journey_definitions (tenant_id, sandbox, name, trigger_event_type, trigger_type, status)
    VALUES (${o.tenantId}, false, ${`Bench web ${o.runId}`}, 'cart.abandoned', 'event', 'active') RETURNING id`
  const definition = { name: "Bench web", trigger: { type: "event", event: "cart.abandoned" }, steps: [{ id: "w", type: "wait", duration: "P1D" }] }
  await o.sql`INSERT INTO journey_versions (journey_id, version, tenant_id, sandbox, definition) VALUES (${journey!.id}, 1, ${o.tenantId}, false, ${o.sql.json(definition)})`
  await new Promise((r) => setTimeout(r, 500))

  let n = 0
  const event = () => {
    const i = n++
    return { event: "cart.abandoned", contact: { email: `web-${o.runId}-${i}@bench-guests.net` }, context: { cart_id: `c-${o.runId}-${i}`, stage: "payment", value: 240 } }
  }
  const batches = await closed(o.agent, o.port, 8, o.durationS * 1000, () => ({
    path: "/api/v1/website-events",
    body: JSON.stringify({ events: Array.from({ length: 50 }, event) }),
    headers: { authorization: `Bearer ${source.server_key}`, "content-type": "application/json" }
  }))
  await new Promise((r) => setTimeout(r, 3_000))
  let visitor = 0
  const beacons = await closed(o.agent, o.port, 64, o.durationS * 1000, () => ({
    path: `/api/v1/website-events?key=${source.browser_key}`,
    body: JSON.stringify(event()),
    headers: { origin: ORIGIN, "content-type": "text/plain;charset=UTF-8", "user-agent": `bench-visitor-${visitor++}` }
  }))
  const [stored] = await o.sql`SELECT count(*)::int AS n FROM website_events WHERE source_id = ${source.source_id}`
  const [runs] = await o.sql`SELECT count(*)::int AS n FROM journey_runs WHERE journey_id = ${journey!.id}`
  return {
    server_batches_of_50: batches,
    browser_single: beacons,
    stored_events: stored!.n as number,
    journey_runs_started_so_far: runs!.n as number
  }
}
