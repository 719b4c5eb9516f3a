import { Schema } from "effect"
import {
  Amount, BatchItems, boundedInt, boundedNumber, CurrencyCode, DateString, DateTimeWithOffset, FreeFormObject, FreeFormValue,
  maxLength, NonEmptyString, oneOf, Quantity, SafeString, Uuid, Warning
} from "./common.ts"

export const ReservationStatuses = [
  "confirmed", "pending", "modified", "cancelled", "no_show", "checked_in", "checked_out"
] as const
export type ReservationStatus = typeof ReservationStatuses[number]

export const ReservationSources = [
  "pms", "booking_engine", "crm", "channel_manager", "website", "others", "api"
] as const

const opt = Schema.optionalKey
const nullable = <S extends Schema.Top>(s: S) => Schema.optionalKey(Schema.NullOr(s))

export const ReservationGuest = Schema.Struct({
  first_name: NonEmptyString,
  last_name: nullable(SafeString),
  email: nullable(SafeString),
  phone: nullable(SafeString),
  is_holder: opt(Schema.Boolean),
  pax_type: nullable(oneOf(["adult", "child", "infant"])),
  date_of_birth: nullable(DateString),
  gender: nullable(oneOf(["male", "female", "other", "prefer_not_to_say"])),
  // Normalised to alpha-2 by the ingress; unrecognised values are dropped with a warning.
  nationality: nullable(SafeString),
  document_type: nullable(oneOf(["passport", "national_id", "drivers_license", "other"])),
  document_number: nullable(maxLength(50)),
  // Truncated / dropped with warnings by the ingress normaliser; refused only by the text policy and the free-form bounds.
  address: opt(FreeFormValue()),
  email_consent: nullable(Schema.Boolean),
  whatsapp_marketing_consent: nullable(Schema.Boolean),
  language: nullable(SafeString),
  pre_checkin_completed_at: nullable(DateTimeWithOffset),
  pre_checkin_source: nullable(maxLength(50)),
  // Legacy: `opted_in` / `opted_out`, mapped to whatsapp_marketing_consent when that is absent.
  opt_in_status: nullable(SafeString)
})
export type ReservationGuest = typeof ReservationGuest.Type

/** People of one stay (a room, or a group's block): more than a thousand is no stay. */
const Headcount = boundedInt(0, 1_000)

export const Stay = Schema.Struct({
  start_date: DateString,
  end_date: DateString,
  room_type: nullable(SafeString),
  room_number: nullable(SafeString),
  board_type: nullable(oneOf(["RO", "BB", "HB", "FB", "AI"])),
  rate_code: nullable(SafeString),
  adults: nullable(Headcount),
  children: nullable(Headcount),
  babies: nullable(Headcount)
}).check(Schema.makeFilter((s) =>
  s.end_date >= s.start_date || { path: ["end_date"], issue: "must not be before start_date" }
))
export type Stay = typeof Stay.Type

export const Extra = Schema.Struct({
  name: NonEmptyString,
  amount: Amount,
  code: nullable(SafeString),
  quantity: nullable(Quantity),
  date: nullable(DateString),
  notes: nullable(SafeString)
})
export type Extra = typeof Extra.Type

const maxItems = (n: number, what: string) =>
  Schema.makeFilter((a: ReadonlyArray<unknown>) => a.length <= n || `at most ${n} ${what} per reservation`)

export const ReservationRequest = Schema.Struct({
  reservation_id: NonEmptyString.check(Schema.makeFilter((s: string) => s.length <= 200 || "must be at most 200 characters")),
  confirmation_number: nullable(SafeString),
  booking_id: nullable(SafeString),
  hotel_id: opt(Uuid),
  hotel_code: opt(NonEmptyString),
  hotel_name: opt(NonEmptyString),
  check_in: DateString,
  check_out: DateString.annotate({ description: "The departure date (YYYY-MM-DD): not before check_in (a 0-night day use is allowed)" }),
  booking_date: nullable(DateString),
  status: opt(oneOf(ReservationStatuses)),
  channel: nullable(SafeString),
  source: opt(oneOf(ReservationSources).annotate({ description: "Which kind of system sent it; `api` when not sent" })),
  company: nullable(SafeString),
  amount: nullable(Amount),
  amount_net: nullable(Amount),
  currency: nullable(CurrencyCode),
  market_segment: nullable(SafeString),
  agency: nullable(maxLength(200)),
  agency_code: nullable(maxLength(100)),
  // Accepted and ignored (computed from the dates): bounded by what the dates can span.
  nights: nullable(boundedNumber(0, 110_000)),
  external_created_at: nullable(DateTimeWithOffset),
  external_updated_at: nullable(DateTimeWithOffset),
  // An empty array is allowed: it keeps the existing guest links (see the Reservations rules).
  guests: Schema.Array(ReservationGuest).check(maxItems(20, "guests")).annotate({
    description: "Required on every upsert, at most 20; an empty array on an update keeps the guests already linked"
  }),
  stays: opt(Schema.Array(Stay).check(maxItems(10, "stays")).annotate({ description: "At most 10 room stays" })),
  extras: opt(Schema.Array(Extra).check(maxItems(100, "extras")).annotate({ description: "At most 100 extras (services, packages)" })),
  comments: nullable(SafeString),
  metadata: nullable(FreeFormObject())
}).check(Schema.makeFilter((r) => {
  const issues: Array<Schema.FilterIssue> = []
  if (r.check_out < r.check_in) issues.push({ path: ["check_out"], issue: "must not be before check_in" })
  if (r.hotel_id === undefined && r.hotel_code === undefined && r.hotel_name === undefined) {
    issues.push({ path: ["hotel_id"], issue: "one of hotel_id, hotel_code or hotel_name is required" })
  }
  return issues
}))
export type ReservationRequest = typeof ReservationRequest.Type

export const ReservationContact = Schema.Struct({
  contact_id: Schema.NullOr(Schema.String),
  phone: Schema.NullOr(Schema.String),
  email: Schema.NullOr(Schema.String),
  is_new: Schema.Boolean,
  is_holder: Schema.Boolean
})

export const ReservationResult = Schema.Struct({
  reservation_id: Schema.String,
  external_reservation_id: Schema.String,
  is_new: Schema.Boolean,
  hotel_id: Schema.String,
  status: Schema.String,
  guest_stage: Schema.String,
  nights: Schema.Number,
  event_id: Schema.NullOr(Schema.String),
  event_type: Schema.NullOr(Schema.String),
  contacts: Schema.Array(ReservationContact),
  warnings: Schema.Array(Warning)
})
export type ReservationResult = typeof ReservationResult.Type

export const SkippedResult = Schema.Struct({
  skipped: Schema.Literal("no_guests_no_existing_reservation"),
  external_reservation_id: Schema.String,
  message: Schema.String,
  warnings: Schema.Array(Warning)
})
export type SkippedResult = typeof SkippedResult.Type

export const ReservationResponse = Schema.Struct({
  success: Schema.Literal(true),
  data: Schema.Union([ReservationResult, SkippedResult])
})
export type ReservationResponse = typeof ReservationResponse.Type

export const BatchRequest = Schema.Struct({
  reservations: BatchItems("ReservationRequest", "1 to 50 Reservation objects")
})

/** A reservations batch's answer, its items carrying `result` (the core batch and the CDP batch differ only there). */
export const batchResponseOf = <S extends Schema.Top>(result: S) => Schema.Struct({
  success: Schema.Literal(true),
  data: Schema.Struct({
    total: Schema.Number,
    created: Schema.Number,
    updated: Schema.Number,
    skipped: Schema.Number,
    failed: Schema.Number,
    results: Schema.Array(Schema.Struct({
      index: Schema.Number,
      success: Schema.Boolean,
      status: Schema.Number,
      data: opt(result),
      error: opt(Schema.Struct({ message: Schema.String, code: Schema.String, details: Schema.Record(Schema.String, Schema.Unknown) }))
    }))
  })
})

export const BatchResponse = batchResponseOf(Schema.Union([ReservationResult, SkippedResult]))
export type BatchResponse = typeof BatchResponse.Type

/** A new reservation: the same body as ReservationResponse, answered 201 (a plain ReservationResponse is answered 200). */
export class ReservationCreated extends Schema.Class<ReservationCreated>("ReservationCreated")(ReservationResponse) {}
