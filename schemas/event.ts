import { Schema } from "effect"
import { FreeFormObject, maxLength, NonEmptyString, SafeString, Uuid, Warning } from "./common.ts"

export const StandardEventTypes = [
  "booking.created", "booking.updated", "booking.cancelled", "guest.checked_in", "guest.checked_out",
  "guest.message", "payment.received", "review.requested"
] as const

const opt = Schema.optionalKey
const CUSTOM = /^[a-z][a-z0-9_]{0,49}\.[a-z][a-z0-9_]{0,49}$/

export const EventType = SafeString.check(Schema.makeFilter((s: string) =>
  (StandardEventTypes as ReadonlyArray<string>).includes(s) || CUSTOM.test(s) ||
  `must be a standard type (${StandardEventTypes.join(", ")}) or a custom category.action in lowercase letters, digits and underscores`
))

export const EventRequest = Schema.Struct({
  event_type: EventType,
  payload: FreeFormObject(),
  contact_id: opt(Uuid),
  guest_phone: opt(NonEmptyString),
  hotel_id: opt(Uuid),
  hotel_name: opt(NonEmptyString),
  hotel_code: opt(NonEmptyString),
  idempotency_key: opt(NonEmptyString.check(Schema.makeFilter((s: string) => s.length <= 200 || "must be at most 200 characters"))),
  source: opt(maxLength(100))
})
export type EventRequest = typeof EventRequest.Type

export const EventResult = Schema.Struct({
  event_id: Schema.String,
  status: Schema.Literal("accepted"),
  event_type: Schema.String,
  contact_id: Schema.NullOr(Schema.String),
  hotel_id: Schema.NullOr(Schema.String),
  matching_journeys: Schema.Number,
  created_at: Schema.String,
  idempotent_replay: Schema.Boolean,
  message: Schema.String
})

export type EventResult = typeof EventResult.Type

/** The event as answered: what the event actor recorded, with the request's warnings (unknown fields). */
export const EventAnswer = Schema.Struct({ ...EventResult.fields, warnings: Schema.Array(Warning) })

export const EventResponse = Schema.Struct({ success: Schema.Literal(true), data: EventAnswer })

/** A new event: the same body as EventResponse, answered 201 (a replay is a plain EventResponse, answered 200). */
export class EventCreated extends Schema.Class<EventCreated>("EventCreated")(EventResponse) {}
