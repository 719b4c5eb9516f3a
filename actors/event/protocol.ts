import { Schema } from "effect"
import { EventResult } from "../../schemas/event.ts"
import * as ActorProtocol from "../../streams/ActorProtocol.ts"

const opt = <S extends Schema.Top>(s: S) => Schema.optional(s)

/** A core event to record, keyed by its idempotency key (or, without one, by its new event id). */
export const RecordEvent = Schema.Struct({
  event_id: Schema.String,
  event_type: Schema.String,
  payload: Schema.Record(Schema.String, Schema.Unknown),
  contact_id: opt(Schema.String),
  /** E.164, already normalised by the ingress. */
  guest_phone: opt(Schema.String),
  hotel_id: opt(Schema.String),
  idempotency_key: opt(Schema.String),
  source: Schema.String
})
export type RecordEvent = typeof RecordEvent.Type

/** The event names a contact (by id or phone) that this account does not have; events never create contacts. */
export class ContactNotFound extends Schema.TaggedError<ContactNotFound>()("ContactNotFound", {
  field: Schema.Literals(["contact_id", "guest_phone"])
}) {}

/** The event actor: one idempotency key's event, recorded once. */
export const EventProtocol = ActorProtocol.make("event", {
  key: (p) => p.idempotency_key ?? p.event_id,
  messages: {
    record: ActorProtocol.message({ payload: RecordEvent, success: EventResult, error: ContactNotFound })
  }
})
