import { Effect } from "effect"
import type { DatabaseFailure } from "../../core/db/DatabaseFailure.ts"
import type { EventResult } from "../../schemas/event.ts"
import * as Actor from "../runtime/Actor.ts"
import { ContactNotFound, EventProtocol, type RecordEvent } from "./protocol.ts"
import { DomainEvents } from "../../streams/topics.ts"
import { contactsNamed, type EventRow, eventsByIdempotencyKey, insertEvents, matchingJourneys } from "./waveStatements.ts"

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

/** The contact the event is about: none named, the one named, or "unknown" (events never create contacts). */
const contactFor = (cmd: RecordEvent): Effect.Effect<string | null | "unknown", DatabaseFailure, Actor.GroupTransaction> => {
  const ask = cmd.contact_id !== undefined ? { contact_id: cmd.contact_id } : cmd.guest_phone !== undefined ? { phone: cmd.guest_phone } : undefined
  return ask === undefined ? Effect.succeed(null) : Effect.map(contactsNamed(ask), (id) => id ?? "unknown")
}

/** Records an event: each step one statement for the whole wave (waveStatements.ts). */
const record = Effect.fn("EventActor.record")(function*(cmd: RecordEvent) {
  const { scope, subject } = yield* Effect.service(Actor.GroupTransaction)
  if (cmd.idempotency_key !== undefined) {
    const original = yield* eventsByIdempotencyKey(cmd.idempotency_key)
    if (original) {
      const matching = yield* matchingJourneys({ type: original.type, hotel_id: original.hotel_id })
      return result(original, matching, true)
    }
  }
  const contact = yield* contactFor(cmd)
  if (contact === "unknown") return yield* new ContactNotFound({ field: cmd.contact_id !== undefined ? "contact_id" : "guest_phone" })
  const [row, matching] = yield* Effect.all([
    insertEvents({
      id: cmd.event_id, type: cmd.event_type, contact_id: contact, hotel_id: cmd.hotel_id ?? null, source: cmd.source,
      payload: cmd.payload, idempotency_key: cmd.idempotency_key ?? null
    }),
    matchingJourneys({ type: cmd.event_type, hotel_id: cmd.hotel_id ?? null })
  ], { concurrency: "unbounded" })
  yield* Actor.emit([DomainEvents.message(cmd.event_id, subject("evt", cmd.event_type), {
    ...scope, occurred_at: row.created_at.toISOString(),
    event_id: cmd.event_id, event_type: cmd.event_type, contact_id: contact, hotel_id: cmd.hotel_id ?? null,
    source: cmd.source, data: cmd.payload
  })])
  return result(row, matching, false)
})

export const EventActor = Actor.make(EventProtocol, { record })
