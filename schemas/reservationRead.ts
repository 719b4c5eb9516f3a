import { Schema } from "effect"
import { Attribution } from "./b2b.ts"
import { DateString, DateTimeWithOffset, oneOf, Uuid } from "./common.ts"
import { listOf, ok, PageQuery } from "./list.ts"
import { JsonValue } from "./text.ts"
import { ReservationSources, ReservationStatuses } from "./reservation.ts"

// A stored reservation as the read routes answer it: every field typed, the partner's own free-form data (metadata,
// a guest's address) declared as such. The single read and every list item share this one shape.

const Text = Schema.NullOr(Schema.String)
const Day = Schema.NullOr(Schema.String.annotate({ description: "YYYY-MM-DD", format: "date" }))
const Instant = Schema.String.annotate({ description: "ISO 8601 date-time, UTC", format: "date-time" })

/**
 * JSON the partner sent and the platform keeps as it came (metadata, an address): its shape is the partner's.
 * Declared rather than a record of unknowns, so the document says what it is.
 */
export const PartnerJson = JsonValue.annotate({ description: "Free-form JSON as the partner sent it (its shape is the partner's)" })

/** A JSON object the partner sent (metadata, an event's payload), kept as it came. */
export const PartnerObject = JsonValue.check(Schema.makeFilter(() => true, { toJsonSchema: () => ({ type: "object" }) as never }))
  .annotate({ description: "A free-form JSON object as the partner sent it (its keys are the partner's)" })

export const ReservationGuestView = Schema.Struct({
  /** The contact the guest was resolved to (null: no phone or email to resolve by). */
  contact_id: Text,
  first_name: Schema.String,
  last_name: Text,
  email: Text,
  phone: Text,
  is_holder: Schema.Boolean,
  pax_type: Text,
  date_of_birth: Day,
  gender: Text,
  nationality: Text,
  document_type: Text,
  document_number: Text,
  address: Schema.NullOr(PartnerJson),
  language: Text,
  email_consent: Schema.NullOr(Schema.Boolean),
  whatsapp_marketing_consent: Schema.NullOr(Schema.Boolean),
  pre_checkin_completed_at: Schema.NullOr(Instant),
  pre_checkin_source: Text,
  relationship_to_holder: Text
})

const Count = Schema.NullOr(Schema.Number)
export const StayView = Schema.Struct({
  start_date: Schema.String,
  end_date: Schema.String,
  room_type: Text,
  room_number: Text,
  board_type: Text,
  rate_code: Text,
  adults: Count,
  children: Count,
  babies: Count
})
export type StayView = typeof StayView.Type

export const ExtraView = Schema.Struct({
  name: Schema.String,
  amount: Schema.Number,
  code: Text,
  quantity: Count,
  date: Day,
  notes: Text
})
export type ExtraView = typeof ExtraView.Type

export const GuestStages = ["pre-arrival", "in-house", "post-stay", "none"] as const

export const ReservationView = Schema.Struct({
  /** Ours: the id `POST /api/v1/reservations` answers. */
  reservation_id: Schema.String.annotate({ format: "uuid" }),
  /** The partner's `reservation_id`, as sent. */
  external_reservation_id: Schema.String,
  hotel_id: Schema.String,
  confirmation_number: Text,
  booking_id: Text,
  check_in: Schema.String.annotate({ format: "date" }),
  check_out: Schema.String.annotate({ format: "date" }),
  nights: Schema.Number,
  booking_date: Day,
  status: Schema.Literals(ReservationStatuses),
  guest_stage: Schema.Literals(GuestStages),
  channel: Text,
  source: Schema.String.annotate({ description: ReservationSources.join(", ") }),
  company: Text,
  amount: Schema.NullOr(Schema.Number),
  amount_net: Schema.NullOr(Schema.Number),
  currency: Text,
  market_segment: Text,
  agency: Text,
  agency_code: Text,
  external_created_at: Schema.NullOr(Instant),
  external_updated_at: Schema.NullOr(Instant),
  comments: Text,
  metadata: Schema.NullOr(PartnerObject),
  stays: Schema.Array(StayView),
  extras: Schema.Array(ExtraView),
  version: Schema.Number,
  booking_channel_code: Text,
  channel_type: Text,
  room_type: Text,
  room_number: Text,
  rate_plan: Text,
  created_at: Instant,
  updated_at: Instant,
  guests: Schema.Array(ReservationGuestView),
  attribution: Attribution
})
export type ReservationView = typeof ReservationView.Type

export const ReservationRead = ok(ReservationView)
export const ReservationList = listOf("reservations", ReservationView)

const opt = Schema.optionalKey

/** `by=external`: the partner's id only, even when it is shaped like one of ours. */
export const ReservationReadQuery = {
  by: opt(Schema.Literal("external").annotate({ description: "external: read the id as the partner's reservation_id only" }))
}

/** A query parameter with its description in the document (a checked schema's own description stays on its check). */
export const described = <S extends Schema.Top>(schema: S, description: string) =>
  opt(schema).annotateKey({ description })

export const ReservationListQuery = {
  hotel_id: described(Uuid, "a hotel's id (UUID): its reservations only"),
  status: opt(oneOf(ReservationStatuses)),
  check_in_from: described(DateString, "check_in on or after this day, YYYY-MM-DD"),
  check_in_to: described(DateString, "check_in on or before this day, YYYY-MM-DD"),
  updated_since: described(DateTimeWithOffset, "updated at or after this instant, ISO 8601 with an offset, e.g. 2026-05-01T00:00:00Z"),
  contact_id: described(Uuid, "a contact's id (UUID): reservations where this contact is a guest"),
  ...PageQuery
}
