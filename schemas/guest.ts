import { Schema } from "effect"
import {
  Amount, BatchItems, CurrencyCode, DateString, DateTimeWithOffset, FreeFormObject, FreeFormValue, maxLength, NonEmptyString, oneOf,
  Quantity, SafeString, Warning
} from "./common.ts"
import { JsonValue } from "./text.ts"

const opt = Schema.optionalKey
const nullable = <S extends Schema.Top>(s: S) => Schema.optionalKey(Schema.NullOr(s))

export const BookingStatuses = ["Confirmed", "Modified", "CheckedIn", "CheckedOut", "Cancelled", "NoShow"] as const

export const Companion = Schema.Struct({
  first_name: NonEmptyString,
  last_name: nullable(SafeString),
  email: nullable(SafeString),
  is_holder: opt(Schema.Boolean),
  pax_type: nullable(oneOf(["Adult", "Child", "Infant"])),
  relationship_to_holder: nullable(maxLength(100)),
  pre_checkin_completed_at: nullable(DateTimeWithOffset),
  pre_checkin_source: nullable(maxLength(50))
})

export const BookingExtra = Schema.Struct({
  name: NonEmptyString,
  amount: Amount,
  quantity: nullable(Quantity),
  notes: nullable(SafeString)
})

export const Booking = Schema.Struct({
  booking_id: NonEmptyString,
  reservation_id: opt(NonEmptyString),
  check_in: DateString,
  check_out: DateString,
  room_type: nullable(SafeString),
  room_number: nullable(SafeString),
  rate_plan: nullable(SafeString),
  board_type: nullable(oneOf(["RO", "BB", "HB", "FB", "AI"])),
  booking_channel: nullable(maxLength(100)),
  total_amount: nullable(Amount),
  currency: nullable(CurrencyCode),
  status: opt(oneOf(BookingStatuses)),
  guests: opt(Schema.Array(Companion).check(Schema.makeFilter((a) => a.length <= 19 || "at most 19 companions"))),
  extras: opt(Schema.Array(BookingExtra).check(Schema.makeFilter((a) => a.length <= 100 || "at most 100 extras")))
}).check(Schema.makeFilter((b) => b.check_out >= b.check_in || { path: ["check_out"], issue: "must not be before check_in" }))
export type Booking = typeof Booking.Type

export const GuestRequest = Schema.Struct({
  phone: NonEmptyString,
  first_name: NonEmptyString,
  last_name: NonEmptyString,
  email: nullable(SafeString),
  language: nullable(SafeString),
  tags: opt(Schema.Array(maxLength(100)).check(Schema.makeFilter((a) => a.length <= 100 || "at most 100 tags"))),
  custom_fields: opt(FreeFormObject().annotate({
    description: "Values by field_key, each of its defined field's type (unknown keys are refused, naming the defined ones); null clears a value; multiselect values are de-duplicated, datetimes stored in UTC"
  })),
  hotel_name: opt(NonEmptyString),
  hotel_code: opt(NonEmptyString),
  source: opt(maxLength(100)),
  booking: opt(Booking),
  trigger_event: opt(Schema.Boolean),
  update_if_exists: opt(Schema.Boolean),
  opt_in_status: nullable(SafeString),
  whatsapp_marketing_consent: nullable(Schema.Boolean),
  email_consent: nullable(Schema.Boolean),
  date_of_birth: nullable(DateString),
  gender: nullable(oneOf(["male", "female", "other", "prefer_not_to_say"])),
  nationality: nullable(SafeString),
  document_type: nullable(oneOf(["passport", "national_id", "drivers_license", "other"])),
  document_number: nullable(maxLength(50)),
  address: opt(FreeFormValue()),
  subscription_status: opt(oneOf(["active", "unsubscribed"])),
  communication_preferences: opt(Schema.Struct({ marketing: opt(Schema.Boolean), utility: opt(Schema.Boolean) })),
  consent_source: nullable(maxLength(200)),
  consent_timestamp: nullable(DateTimeWithOffset),
  fill_only_fields: opt(Schema.Array(oneOf(["date_of_birth", "address"])))
})
export type GuestRequest = typeof GuestRequest.Type

export const GuestResult = Schema.Struct({
  contact_id: Schema.NullOr(Schema.String).annotate({
    description: "null only when the guest is suppressed by a privacy request (warning subject_suppressed): nothing was stored"
  }),
  is_new: Schema.Boolean,
  hotel_id: Schema.NullOr(Schema.String),
  reservation_id: Schema.NullOr(Schema.String),
  event_id: Schema.NullOr(Schema.String),
  message: Schema.String,
  warnings: Schema.Array(Warning)
})
export type GuestResult = typeof GuestResult.Type

export const GuestResponse = Schema.Struct({ success: Schema.Literal(true), data: GuestResult })

export const GuestBatchRequest = Schema.Struct({
  guests: BatchItems("GuestRequest", "1 to 500 Guest requests")
})

const ErrorBody = Schema.Struct({ message: Schema.String, code: Schema.String, details: Schema.Record(Schema.String, Schema.Unknown) })

export const GuestBatchResponse = Schema.Struct({
  success: Schema.Literal(true),
  data: Schema.Struct({
    total: Schema.Number,
    created: Schema.Number,
    updated: Schema.Number,
    failed: Schema.Number,
    results: Schema.Array(Schema.Struct({
      index: Schema.Number,
      success: Schema.Boolean,
      status: Schema.Number,
      data: opt(GuestResult),
      error: opt(ErrorBody)
    }))
  })
})

const NullString = Schema.NullOr(Schema.String)
/** A contact's profile as GET /api/v1/guests answers it. */
export const GuestProfileData = Schema.Struct({
  contact_id: Schema.String, phone: NullString, email: NullString, first_name: NullString, last_name: NullString, language: NullString,
  date_of_birth: NullString, gender: NullString, nationality: NullString, document_type: NullString, document_number: NullString,
  address: JsonValue.annotate({ description: "the address as last sent (any JSON value; null when none was sent)" }),
  subscription_status: NullString, source: NullString,
  tags: Schema.Array(Schema.String),
  custom_fields: Schema.Record(Schema.String, Schema.Unknown).annotate({ description: "values by field_key, each of its field's type" }),
  consent: Schema.Struct({
    email: Schema.NullOr(Schema.Boolean),
    whatsapp_marketing: Schema.NullOr(Schema.Boolean),
    /** The latest 50 consent changes, newest first. */
    history: Schema.Array(Schema.Struct({
      channel: Schema.Literals(["email", "whatsapp"]), granted: Schema.Boolean, source: Schema.String, captured_at: NullString, recorded_at: Schema.String
    }))
  }),
  hotels: Schema.Array(Schema.Struct({ hotel_id: Schema.String, code: Schema.String, name: Schema.String, first_seen_at: Schema.String, last_seen_at: Schema.String })),
  /** The latest 20 by check-in. */
  reservations: Schema.Array(Schema.Struct({
    reservation_id: Schema.String, external_reservation_id: Schema.String, hotel_id: Schema.String, status: Schema.String, guest_stage: NullString,
    check_in: Schema.String, check_out: Schema.String, is_holder: Schema.Boolean
  })),
  created_at: Schema.String,
  updated_at: Schema.String
})
export const GuestProfile = Schema.Struct({ success: Schema.Literal(true), data: GuestProfileData })

/** A new contact: the same body as GuestResponse, answered 201 (an existing contact is a plain GuestResponse, 200). */
export class GuestCreated extends Schema.Class<GuestCreated>("GuestCreated")(GuestResponse) {}
