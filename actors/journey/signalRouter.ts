import type { JetStreamClient, JsMsg } from "@nats-io/jetstream"
import { deterministicId } from "../../core/deterministicId.ts"
import type { Sql } from "../../core/db/Database.ts"
import { errorText, log } from "../../core/observability/log.ts"
import type { JourneyTrigger } from "../../schemas/journey.ts"
import { encode } from "../../streams/envelope.ts"
import { decodeBatch } from "../../streams/consumers.ts"
import { DomainEvents } from "../../streams/topics.ts"
import { told } from "../../streams/tell.ts"
import { JourneyProtocol } from "./protocol.ts"
import { type DomainEvent, signalsOf } from "./signals.ts"
import { stopOnBookingOf, stopWhenOf } from "./triggers.ts"

export interface RouterDeps {
  readonly sql: Sql
  readonly js: JetStreamClient
  readonly namespace: string
  readonly partitions: number
  /** The time the signals are sent at (the layer's Clock). */
  readonly now: () => number
}

interface ActiveTrigger {
  readonly tenant_id: string
  readonly sandbox: boolean
  readonly trigger: JourneyTrigger
}

/**
 * What a tenant's (and mode's) active journeys listen to, over every version of them (a live run may be on an older
 * one): their trigger events, their stop events, and bookings when any of them stops on a booking.
 */
const listenersOf = (rows: ReadonlyArray<ActiveTrigger>) => {
  const byScope = new Map<string, { names: Set<string>; bookings: boolean }>()
  for (const r of rows) {
    const key = `${r.tenant_id}/${r.sandbox}`
    const l = byScope.get(key) ?? { names: new Set<string>(), bookings: false }
    if (r.trigger.type === "event") l.names.add(r.trigger.event)
    for (const name of stopWhenOf(r.trigger)) l.names.add(name)
    l.bookings ||= stopOnBookingOf(r.trigger)
    byScope.set(key, l)
  }
  return (e: DomainEvent): boolean => {
    const l = byScope.get(`${e.tenant_id}/${e.sandbox}`)
    return l !== undefined && (l.names.has(e.event_type) || (l.bookings && e.origin === "booking"))
  }
}

/**
 * Routes a batch of domain events to the journey actors: each event an active journey of its tenant (and mode) listens
 * to becomes one `signal` per contact it concerns, published on the contact's partition with Nats-Msg-Id derived from
 * event and contact (a redelivered event publishes nothing twice), then the events are acked. Events no active journey
 * listens to are acked and dropped: they would start and stop nothing, and a journey activated later starts from later
 * events. A database or NATS failure naks the batch for a retry.
 */
export const routeSignals = async (deps: RouterDeps, batch: ReadonlyArray<JsMsg>): Promise<void> => {
  const events = decodeBatch(batch, DomainEvents, "domain event undecodable, not routed to journeys")
  if (events.length === 0) return
  try {
    const scopes = [...new Map(events.map(({ value: e }) => [`${e.tenant_id}/${e.sandbox}`, e])).values()]
    const hears = listenersOf(await deps.sql<Array<ActiveTrigger>>`
      SELECT j.tenant_id, j.sandbox, v.definition->'trigger' AS trigger
      FROM journey_definitions j JOIN journey_versions v ON v.journey_id = j.id
      WHERE j.status = 'active' AND (j.tenant_id, j.sandbox) IN (
        SELECT * FROM unnest(${scopes.map((e) => e.tenant_id)}::uuid[], ${scopes.map((e) => String(e.sandbox))}::text[]::boolean[]))`)
    await Promise.all(events.flatMap(({ value: e }) =>
      hears(e)
        ? signalsOf(e).map((s) => {
          const t = told(deps, JourneyProtocol, "signal", e, s, `signal:${s.event_id}:${s.contact_id}`, deps.now())
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
