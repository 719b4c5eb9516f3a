import type { JetStreamClient, JsMsg } from "@nats-io/jetstream"
import { deterministicId } from "../../core/deterministicId.ts"
import type { Sql } from "../../core/db/Database.ts"
import { errorText, log } from "../../core/observability/log.ts"
import { decode, encode } from "../../streams/envelope.ts"
import { told } from "../../streams/tell.ts"
import { JourneyProtocol } from "./protocol.ts"
import { type DomainEvent, signalsOf } from "./signals.ts"

export interface RouterDeps {
  readonly sql: Sql
  readonly js: JetStreamClient
  readonly namespace: string
  readonly partitions: number
}

/**
 * Routes a batch of domain events to the journey actors: each event of a tenant (and mode) with an active journey
 * becomes one `signal` per contact it concerns, published on the contact's partition with Nats-Msg-Id derived from
 * event and contact (a redelivered event publishes nothing twice), then the events are acked. Events of tenants
 * without an active journey are acked and dropped: nobody listens, and a journey activated later starts from later
 * events. A database or NATS failure naks the batch for a retry.
 */
export const routeSignals = async (deps: RouterDeps, batch: ReadonlyArray<JsMsg>): Promise<void> => {
  const events: Array<{ m: JsMsg; e: DomainEvent }> = []
  for (const m of batch) {
    try {
      events.push({ m, e: decode<DomainEvent>(m.data) })
    } catch (err) {
      log("error", "domain event undecodable, not routed to journeys", { seq: m.seq, error: errorText(err) })
      m.term()
    }
  }
  if (events.length === 0) return
  try {
    const scopes = [...new Map(events.map(({ e }) => [`${e.tenant_id}/${e.sandbox}`, e])).values()]
    const listening = new Set((await deps.sql<Array<{ tenant_id: string; sandbox: boolean }>>`
      SELECT DISTINCT tenant_id, sandbox FROM journey_definitions
      WHERE status = 'active' AND (tenant_id, sandbox) IN (
        SELECT * FROM unnest(${scopes.map((e) => e.tenant_id)}::uuid[], ${scopes.map((e) => String(e.sandbox))}::text[]::boolean[]))`)
      .map((r) => `${r.tenant_id}/${r.sandbox}`))
    await Promise.all(events.flatMap(({ e }) =>
      listening.has(`${e.tenant_id}/${e.sandbox}`)
        ? signalsOf(e).map((s) => {
          const t = told(deps, JourneyProtocol, "signal", e, s, `signal:${s.event_id}:${s.contact_id}`)
          return deps.js.publish(t.subject, encode(t.payload), { msgID: deterministicId(t.id) })
        })
        : []))
  } catch (err) {
    log("warn", "journey signal routing deferred", { events: events.length, error: errorText(err) })
    for (const { m } of events) m.nak(2_000)
    return
  }
  for (const { m } of events) m.ack()
}
