import { Schema } from "effect"
import { Attribution } from "../../schemas/b2b.ts"
import { Warning } from "../../schemas/common.ts"
import { Extra, ReservationResult, ReservationStatuses, SkippedResult, Stay } from "../../schemas/reservation.ts"
import * as ActorProtocol from "../../streams/ActorProtocol.ts"
import { ProfileFields } from "../guest/protocol.ts"

const opt = <S extends Schema.Top>(s: S) => Schema.optional(s)
/** Absent = left as stored; null = cleared. */
const column = <S extends Schema.Top>(s: S) => Schema.optional(Schema.NullOr(s))

/**
 * A guest after ingress normalisation (phone in E.164, email lower-cased, or absent when unusable): the profile the
 * identity resolver reads, plus what only the reservation keeps.
 */
export const GuestInput = Schema.Struct({
  ...ProfileFields,
  first_name: Schema.String,
  is_holder: Schema.Boolean,
  pax_type: opt(Schema.String),
  pre_checkin_completed_at: column(Schema.String),
  pre_checkin_source: opt(Schema.String),
  relationship_to_holder: opt(Schema.String)
})
export type GuestInput = typeof GuestInput.Type

/** Reservation columns a request can set. The one list of them: state, repository and normaliser derive from it. */
export const ReservationFields = Schema.Struct({
  confirmation_number: column(Schema.String),
  booking_id: column(Schema.String),
  check_in: Schema.String,
  check_out: Schema.String,
  booking_date: column(Schema.String),
  status: opt(Schema.Literals(ReservationStatuses)),
  channel: column(Schema.String),
  source: opt(Schema.String),
  company: column(Schema.String),
  amount: column(Schema.Number),
  amount_net: column(Schema.Number),
  currency: column(Schema.String),
  market_segment: column(Schema.String),
  agency: column(Schema.String),
  agency_code: column(Schema.String),
  external_created_at: column(Schema.String),
  external_updated_at: column(Schema.String),
  comments: column(Schema.String),
  metadata: column(Schema.Record(Schema.String, Schema.Unknown)),
  /** Guests API bookings: the raw PMS channel code and what the tenant's mapping resolved it to. */
  booking_channel_code: column(Schema.String),
  channel_type: column(Schema.String),
  room_type: column(Schema.String),
  room_number: column(Schema.String),
  rate_plan: column(Schema.String)
})
export type ReservationFields = typeof ReservationFields.Type

/** The columns that are neither required nor defaulted: a request's value, else the stored one, else null. */
export const OPTIONAL_FIELDS = Object.keys(ReservationFields.fields).filter(
  (k): k is Exclude<keyof ReservationFields, "check_in" | "check_out" | "status" | "source"> =>
    !["check_in", "check_out", "status", "source"].includes(k)
)

/** A reservation upsert, keyed by the partner's reservation id. */
export const UpsertReservation = Schema.Struct({
  external_id: Schema.String,
  hotel_id: Schema.String,
  fields: ReservationFields,
  guests: Schema.Array(GuestInput),
  stays: opt(Schema.Array(Stay)),
  extras: opt(Schema.Array(Extra)),
  warnings: Schema.Array(Warning),
  /** false: store the reservation without a booking event (guests API `trigger_event: false`). Default true. */
  emit_event: opt(Schema.Boolean),
  /**
   * Guests the ingress left out because a privacy request suppressed them: the reservation's facts are stored even
   * when no guest is left (a reservation sent without guests and never seen before is otherwise skipped).
   */
  suppressed_guests: opt(Schema.Number)
})
export type UpsertReservation = typeof UpsertReservation.Type

/**
 * A decision about the reservation's B2B account: `manual` sets the account (null = none) and keeps it through later
 * upserts; `automatic` drops a manual decision and lets the rules decide again.
 */
export const AttributeReservation = Schema.Struct({
  external_id: Schema.String,
  mode: Schema.Literals(["manual", "automatic"]),
  account_id: Schema.NullOr(Schema.String)
})
export type AttributeReservation = typeof AttributeReservation.Type

export class ReservationNotFound extends Schema.TaggedError<ReservationNotFound>()("ReservationNotFound", {}) {}
/** The account named for a manual attribution is not one of this tenant and mode. */
export class AccountNotFound extends Schema.TaggedError<AccountNotFound>()("AccountNotFound", {}) {}

/** The reservation actor: one partner reservation, its stays, extras, guest links, status, stage and B2B attribution. */
export const ReservationProtocol = ActorProtocol.make("reservation", {
  key: (p) => p.external_id,
  messages: {
    upsert: ActorProtocol.message({ payload: UpsertReservation, success: Schema.Union([ReservationResult, SkippedResult]) }),
    attribute: ActorProtocol.message({
      payload: AttributeReservation,
      success: Attribution,
      error: Schema.Union([ReservationNotFound, AccountNotFound])
    })
  }
})
