import { Effect } from "effect"
import type { Tx } from "../../core/db/Database.ts"
import { jsonb } from "../../core/db/Database.ts"
import type { TenantScope } from "../../core/TenantScope.ts"
import type { EventResult } from "../../schemas/event.ts"
import * as Actor from "../runtime/Actor.ts"
import { ContactNotFound, EventProtocol, type RecordEvent } from "./protocol.ts"
import { DomainEvents } from "../../streams/topics.ts"

interface EventRow {
  readonly id: string
  readonly type: string
  readonly contact_id: string | null
  readonly hotel_id: string | null
  readonly created_at: Date
}

const result = (row: EventRow, matching: number, replay: boolean): EventResult => ({
  event_id: row.id,
  status: "accepted",
  event_type: row.type,
  contact_id: row.contact_id ?? null,
  hotel_id: row.hotel_id ?? null,
  matching_journeys: matching,
  created_at: row.created_at.toISOString(),
  idempotent_replay: replay,
  message: replay ? "Event already recorded with this idempotency_key; the original is returned" : "Event accepted"
})

const matchingJourneys = async (tx: Tx, scope: TenantScope, type: string, hotelId: string | null) => {
  const [row] = await tx`
    SELECT count(*)::int AS n FROM journey_definitions
    WHERE tenant_id = ${scope.tenant_id} AND sandbox = ${scope.sandbox} AND status = 'active' AND trigger_event_type = ${type}
      AND (hotel_ids = '{}' OR ${hotelId}::uuid = ANY(hotel_ids))`
  return row!.n as number
}

/** The contact the event is about: none named, the one named, or "unknown" (events never create contacts). */
const contactFor = async (tx: Tx, scope: TenantScope, cmd: RecordEvent): Promise<string | null | "unknown"> => {
  if (cmd.contact_id !== undefined) {
    const rows = await tx`SELECT id FROM contacts WHERE id = ${cmd.contact_id} AND tenant_id = ${scope.tenant_id} AND sandbox = ${scope.sandbox}`
    return rows.length > 0 ? cmd.contact_id : "unknown"
  }
  if (cmd.guest_phone === undefined) return null
  const rows = await tx`SELECT id FROM contacts WHERE tenant_id = ${scope.tenant_id} AND sandbox = ${scope.sandbox} AND phone = ${cmd.guest_phone}`
  return (rows[0]?.id as string | undefined) ?? "unknown"
}

const record = Effect.fn("EventActor.record")(function*(cmd: RecordEvent) {
  const { scope, subject } = yield* Effect.service(Actor.GroupTransaction)
  if (cmd.idempotency_key !== undefined) {
    const [original] = yield* Actor.query((tx) => tx<Array<EventRow>>`
      SELECT id, type, contact_id, hotel_id, created_at FROM events
      WHERE tenant_id = ${scope.tenant_id} AND sandbox = ${scope.sandbox} AND idempotency_key = ${cmd.idempotency_key!}`)
    if (original) {
      const matching = yield* Actor.query((tx) => matchingJourneys(tx, scope, original.type, original.hotel_id))
      return result(original, matching, true)
    }
  }
  const contact = yield* Actor.query((tx) => contactFor(tx, scope, cmd))
  if (contact === "unknown") return yield* new ContactNotFound({ field: cmd.contact_id !== undefined ? "contact_id" : "guest_phone" })
  const [[row], matching] = yield* Actor.query((tx) => Promise.all([
    tx<Array<EventRow>>`
      INSERT INTO events (id, tenant_id, sandbox, type, contact_id, hotel_id, source, payload, idempotency_key)
      VALUES (${cmd.event_id}, ${scope.tenant_id}, ${scope.sandbox}, ${cmd.event_type}, ${contact}, ${cmd.hotel_id ?? null},
        ${cmd.source}, ${jsonb(tx, cmd.payload)}::jsonb, ${cmd.idempotency_key ?? null})
      RETURNING id, type, contact_id, hotel_id, created_at`,
    matchingJourneys(tx, scope, cmd.event_type, cmd.hotel_id ?? null)
  ]))
  yield* Actor.emit([DomainEvents.message(cmd.event_id, subject("evt", cmd.event_type), {
    ...scope, occurred_at: row!.created_at.toISOString(),
    event_id: cmd.event_id, event_type: cmd.event_type, contact_id: contact, hotel_id: cmd.hotel_id ?? null,
    source: cmd.source, data: cmd.payload
  })])
  return result(row!, matching, false)
})

export const EventActor = Actor.make(EventProtocol, { record })
