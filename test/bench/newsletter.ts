import type { Agent } from "node:http"
import { exchange, Latencies, type PlatformPhase, round } from "./load.ts"

// Newsletter sign-ups per second through POST /api/v1/newsletter/subscribe, as browsers send them (publishable key,
// an allowed Origin, a new address each): each takes the whole path (newsletter actor, contact created, subscription
// stored, confirmation email told to the message actor). Then how many confirmation emails left within a few seconds.

const ORIGIN = "https://news.bench-hotel.net"

const send = (agent: Agent, port: number, body: string, headers: Record<string, string>) =>
  exchange(agent, port, { method: "POST", path: "/api/v1/newsletter/subscribe", headers, body }).then((o) => o.status)

export const newsletterPhase = async (o: PlatformPhase & { readonly concurrency?: number }) => {
  await o.sql`INSERT INTO channel_email (tenant_id, sandbox, from_address) VALUES (${o.tenantId}, false, 'news@bench-hotel.net') ON CONFLICT DO NOTHING`
  const configured = await fetch(`${o.baseUrl}/api/v1/newsletter/config`, {
    method: "PATCH", headers: { authorization: `Bearer ${o.coreKey}`, "content-type": "application/json" },
    body: JSON.stringify({ enabled: true, allowed_origins: [ORIGIN], fields: { first_name: true } })
  })
  const { data } = await configured.json() as { data: { publishable_key: string } }
  const headers = { authorization: `Bearer ${data.publishable_key}`, origin: ORIGIN, "content-type": "application/json" }
  const latencies = new Latencies()
  const statuses: Record<string, number> = {}
  let n = 0
  const start = performance.now()
  const client = async () => {
    while (performance.now() - start < o.durationS * 1000) {
      const body = JSON.stringify({ email: `nl-${o.runId}-${n++}@bench-guests.net`, consent: true, first_name: "Ana", language: "es", source: "bench" })
      const t0 = performance.now()
      const status = await send(o.agent, o.port, body, headers)
      latencies.add(performance.now() - t0)
      statuses[status] = (statuses[status] ?? 0) + 1
    }
  }
  await Promise.all(Array.from({ length: o.concurrency ?? 32 }, client))
  const seconds = (performance.now() - start) / 1000
  await new Promise((r) => setTimeout(r, 5_000))
  const [emails] = await o.sql`SELECT count(*) FILTER (WHERE status = 'sent')::int AS sent, count(*)::int AS recorded
    FROM messages WHERE tenant_id = ${o.tenantId} AND origin = 'newsletter'`
  return {
    seconds: round(seconds),
    requests: latencies.count,
    statuses,
    subscribes_per_s: round((statuses["202"] ?? 0) / seconds),
    latency_ms: latencies.summary(),
    confirmation_emails_recorded: emails!.recorded as number,
    confirmation_emails_sent_5s_after: emails!.sent as number
  }
}
