import type { Agent } from "node:http"
import { exchange, Latencies, round } from "./load.ts"

// CDP: accepted visitor events per second through POST /api/v1/cdp/events (requests of 20 events, visitors rotating
// over a pool, tracking on), and a bulk job of 5,000 post-checkout reservations (each with a visitor and a cart, so the
// whole path runs: reservation actor, visitor actor's checkout link, checkout.completed) from the 202 to completed,
// then the same job without the visit (the reservation actor alone), which shows what the checkout link costs.

const send = (agent: Agent, port: number, method: string, path: string, key: string, body?: string) =>
  exchange(agent, port, { method, path, headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { "content-type": "application/json" }) }, body })

export const cdpPhase = async (o: {
  readonly agent: Agent
  readonly port: number
  readonly coreKey: string
  readonly hotelCode: string
  readonly runId: string
  readonly durationS: number
  readonly bulkSize: number
}) => {
  await send(o.agent, o.port, "PATCH", "/api/v1/cdp/settings", o.coreKey, JSON.stringify({ visitor_tracking: true }))

  // ---- visitor events, closed loop ----
  const latencies = new Latencies()
  const statuses: Record<string, number> = {}
  let accepted = 0
  let n = 0
  const start = performance.now()
  const durationMs = o.durationS * 1000
  const client = async () => {
    while (performance.now() - start < durationMs) {
      const v = n++ % 5_000
      const ts = new Date().toISOString()
      const body = JSON.stringify({
        visitor_id: `bv-${o.runId}-${v}`, session_id: `bs-${o.runId}-${v}`, device: { type: "mobile", browser: "Safari" },
        utm: { source: "google", medium: "cpc" },
        events: Array.from({ length: 20 }, (_, k) => ({ type: "page_view", url: `https://bench.hotel.com/rooms/${n}/${k}`, ts }))
      })
      const t0 = performance.now()
      const res = await send(o.agent, o.port, "POST", "/api/v1/cdp/events", o.coreKey, body)
      latencies.add(performance.now() - t0)
      statuses[res.status] = (statuses[res.status] ?? 0) + 1
      if (res.status === 202) accepted += (JSON.parse(res.body) as { data: { accepted: number } }).data.accepted
    }
  }
  await Promise.all(Array.from({ length: 32 }, client))
  const seconds = (performance.now() - start) / 1000
  const events = { seconds: round(seconds), requests: latencies.count, statuses, accepted, events_per_s: round(accepted / seconds), latency_ms: latencies.summary() }

  // ---- bulk jobs: with the visit (the whole path), then without (the reservation actor alone, for comparison) ----
  const bulkJob = async (label: string, withVisit: boolean) => {
    const reservations = Array.from({ length: o.bulkSize }, (_, i) => ({
      reservation_id: `bulk-${label}-${o.runId}-${i}`, hotel_code: o.hotelCode, check_in: "2026-12-01", check_out: "2026-12-03",
      status: "confirmed", source: "booking_engine",
      ...(withVisit ? { visitor_id: `bv-${o.runId}-${i % 5_000}`, cart_id: `bc-${label}-${o.runId}-${i}`, utm: { source: "newsletter" } } : {}),
      guests: [{ first_name: "Bench", email: `bulk-${label}-${o.runId}-${i}@hotel-guests.net`, is_holder: true }]
    }))
    const t0 = performance.now()
    const posted = await send(o.agent, o.port, "POST", "/api/v1/cdp/reservations/bulk", o.coreKey, JSON.stringify({ reservations }))
    const acceptedMs = performance.now() - t0
    if (posted.status !== 202) return { error: `${posted.status} ${posted.body.slice(0, 300)}` }
    const id = (JSON.parse(posted.body) as { data: { batch_id: string } }).data.batch_id
    let status: { status: string; succeeded: number; failed: number } = { status: "queued", succeeded: 0, failed: 0 }
    while (!["completed", "failed"].includes(status.status) && performance.now() - t0 < 600_000) {
      await new Promise((r) => setTimeout(r, 200))
      const res = await send(o.agent, o.port, "GET", `/api/v1/cdp/batches/${id}`, o.coreKey)
      if (res.status === 200) status = (JSON.parse(res.body) as { data: typeof status }).data
    }
    const seconds = (performance.now() - t0) / 1000
    return {
      size: o.bulkSize, accepted_in_ms: round(acceptedMs), seconds: round(seconds), status: status.status,
      succeeded: status.succeeded, failed: status.failed, reservations_per_s: round(status.succeeded / seconds)
    }
  }
  const bulk = await bulkJob("visit", true)
  const bulkWithoutVisit = await bulkJob("plain", false)
  return { events, bulk, bulk_without_visit: bulkWithoutVisit }
}
