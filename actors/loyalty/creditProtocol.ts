import { Schema } from "effect"
import * as ActorProtocol from "../../streams/ActorProtocol.ts"
import { Balances } from "./balances.ts"
import { refusedWith } from "./refusalProtocol.ts"

// Member-actor messages of credit holds (points as payment on a reservation) and of earning reversals.

const opt = <S extends Schema.Top>(s: S) => Schema.optional(s)
const NullableString = Schema.NullOr(Schema.String)
const HoldStatus = Schema.Literals(["active", "confirmed", "released", "expired", "reversed"])

/** Reserves points on the member's lots for a reservation (idempotent on external_reference_id). */
export const PlaceHold = Schema.Struct({
  member_id: Schema.String,
  external_reference_id: Schema.String,
  reservation_id: Schema.String,
  /** Points, or money in minor units of the programme currency (converted at point_value, ceiled): exactly one. */
  points: opt(Schema.Number),
  amount_minor: opt(Schema.Number),
  currency: opt(Schema.String),
  ttl_seconds: Schema.Number
})
export type PlaceHold = typeof PlaceHold.Type

/** Confirms (spends) or releases active holds of the member. */
export const EndHold = Schema.Struct({
  member_id: Schema.String,
  hold_ids: Schema.Array(Schema.String),
  move: Schema.Literals(["confirm", "release"])
})
export type EndHold = typeof EndHold.Type

/** Gives confirmed holds' points back, atomically, once each (a refund row per hold). */
export const CreditReverse = Schema.Struct({
  member_id: Schema.String,
  hold_ids: Schema.Array(Schema.String),
  reason: NullableString
})
export type CreditReverse = typeof CreditReverse.Type

/** Reverses earnings (cancellation, no-show, correction), by their transaction ids. */
export const ReverseEarn = Schema.Struct({
  member_id: Schema.String,
  transaction_ids: Schema.Array(Schema.String),
  reason: NullableString
})
export type ReverseEarn = typeof ReverseEarn.Type

/**
 * A reservation of the member's (its holder's email) checked out, was cancelled or was a no-show: sent by the
 * reservation actor through the outbox. Checked out earns per the programme (once per reservation, whichever path
 * earned first); cancelled and no-show reverse what the reservation earned.
 */
export const StayEvent = Schema.Struct({
  member_id: Schema.String,
  event: Schema.Literals(["checked_out", "cancelled", "no_show"]),
  reservation_id: Schema.String,
  amount: Schema.NullOr(Schema.Number),
  currency: Schema.NullOr(Schema.String),
  nights: Schema.Number,
  check_in: Schema.String,
  check_out: Schema.String,
  hotel: Schema.NullOr(Schema.String)
})
export type StayEvent = typeof StayEvent.Type

const HoldView = Schema.Struct({
  hold_id: Schema.String,
  status: HoldStatus,
  reservation_id: Schema.String,
  points_held: Schema.Number,
  amount_minor: Schema.Number,
  currency: Schema.String,
  expires_at: Schema.String
})

export const HoldPlaced = Schema.Struct({
  hold: HoldView,
  idempotent_replay: Schema.Boolean,
  balances: Balances
})
export const HoldsEnded = Schema.Struct({
  /** Each hold named, with its status now and the points this command moved (0 on a repeat). */
  holds: Schema.Array(Schema.Struct({ hold_id: Schema.String, status: HoldStatus, points: Schema.Number, amount_minor: Schema.Number, currency: NullableString })),
  balances: Balances
})
export const CreditReversed = Schema.Struct({
  refunds: Schema.Array(Schema.Struct({ hold_id: Schema.String, refund_id: Schema.String, points_restored: Schema.Number, idempotent_replay: Schema.Boolean })),
  balances: Balances
})
export const EarnReversed = Schema.Struct({
  reversed: Schema.Array(Schema.Struct({
    transaction_id: Schema.String,
    status: Schema.Literals(["reversed", "voided", "already_reversed", "already_voided"]),
    points_reversed: Schema.Number,
    points_voided: Schema.Number,
    points_unrecovered: Schema.Number
  })),
  balances: Balances
})

export const StayApplied = Schema.Struct({
  outcome: Schema.Literals(["earned", "already_earned", "reversed", "nothing_to_reverse", "not_earned"]),
  detail: NullableString
})


export type HoldPlaced = typeof HoldPlaced.Type
export type HoldsEnded = typeof HoldsEnded.Type
export type CreditReversed = typeof CreditReversed.Type
export type EarnReversed = typeof EarnReversed.Type
export type StayApplied = typeof StayApplied.Type

const message = ActorProtocol.message

export const CreditMessages = {
  placeHold: message({
    payload: PlaceHold,
    success: HoldPlaced,
    error: refusedWith(["MEMBER_NOT_FOUND", "MEMBER_INACTIVE", "IDEMPOTENCY_CONFLICT", "PROGRAM_NOT_CONFIGURED", "CURRENCY_MISMATCH", "AMOUNT_TOO_SMALL", "INSUFFICIENT_POINTS"])
  }),
  /** A release refuses no unsubscribed member (MEMBER_INACTIVE is a confirm's). */
  endHold: message({
    payload: EndHold,
    success: HoldsEnded,
    error: refusedWith(["MEMBER_NOT_FOUND", "MEMBER_INACTIVE", "HOLD_NOT_FOUND", "HOLD_EXPIRED", "HOLD_NOT_ACTIVE"])
  }),
  creditReverse: message({ payload: CreditReverse, success: CreditReversed, error: refusedWith(["MEMBER_NOT_FOUND", "HOLD_NOT_FOUND", "HOLD_NOT_CONFIRMED"]) }),
  reverseEarn: message({ payload: ReverseEarn, success: EarnReversed, error: refusedWith(["MEMBER_NOT_FOUND", "EARN_NOT_FOUND"]) }),
  /** An earning the stay cannot make is answered (not_earned), not refused; a reversal's refusals are. */
  stayEvent: message({ payload: StayEvent, success: StayApplied, error: refusedWith(["MEMBER_NOT_FOUND", "EARN_NOT_FOUND"]) })
}
