import { Schema } from "effect"
import { DateTimeWithOffset, Uuid } from "./common.ts"
import { EventType } from "./event.ts"
import { listOf, ok, PageQuery } from "./list.ts"
import { described, PartnerObject } from "./reservationRead.ts"

// A stored event as the read routes answer it: core events (POST /api/v1/events) and the reservation family's
// booking events (booking.created, ...) live in one table and read the same.

const Text = Schema.NullOr(Schema.String)

export const EventView = Schema.Struct({
  event_id: Schema.String.annotate({ format: "uuid" }),
  event_type: Schema.String,
  status: Schema.String,
  contact_id: Text,
  hotel_id: Text,
  /** Our id of the reservation a booking event is about (null for a core event). */
  reservation_id: Text,
  source: Text,
  idempotency_key: Text,
  payload: PartnerObject.annotate({ description: "The event's data: a core event's payload as sent, a booking event's reservation summary" }),
  created_at: Schema.String.annotate({ description: "ISO 8601 date-time, UTC", format: "date-time" })
})
export type EventView = typeof EventView.Type

export const EventRead = ok(EventView)
export const EventList = listOf("events", EventView)

export const EventListQuery = {
  type: described(EventType, "an event type, e.g. booking.created or spa.booked"),
  contact_id: described(Uuid, "a contact's id (UUID): events about this contact"),
  since: described(DateTimeWithOffset, "created at or after this instant, ISO 8601 with an offset, e.g. 2026-05-01T00:00:00Z"),
  ...PageQuery
}
export const EventParams = { event_id: Uuid.annotate({ description: "the event_id (UUID) an event write answered" }) }
