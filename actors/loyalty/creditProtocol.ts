import { Schema } from "effect"
import { Balances } from "./balances.ts"

// Member-actor commands of credit holds (points as payment on a reservation) and of earning reversals.

const opt = <S extends Schema.Top>(s: S) => Schema.optional(s)
const NullableString = Schema.NullOr(Schema.String)
const HoldStatus = Schema.Literals(["active", "confirmed", "released", "expired", "reversed"])

/** Reserves points on the member's lots for a reservation (idempotent on external_reference_id). */
export const PlaceHold = Schema.Struct({
  op: Schema.Literal("hold"),
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
  op: Schema.Literal("end_hold"),
  member_id: Schema.String,
  hold_ids: Schema.Array(Schema.String),
  move: Schema.Literals(["confirm", "release"])
})
export type EndHold = typeof EndHold.Type

/** Gives confirmed holds' points back, atomically, once each (a refund row per hold). */
export const CreditReverse = Schema.Struct({
  op: Schema.Literal("credit_reverse"),
  member_id: Schema.String,
  hold_ids: Schema.Array(Schema.String),
  reason: NullableString
})
export type CreditReverse = typeof CreditReverse.Type

/** Reverses earnings (cancellation, no-show, correction), by their transaction ids. */
export const ReverseEarn = Schema.Struct({
  op: Schema.Literal("reverse_earn"),
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
  op: Schema.Literal("stay_event"),
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

export const CreditCommands = [PlaceHold, EndHold, CreditReverse, ReverseEarn, StayEvent] as const

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
  op: Schema.Literal("hold_placed"),
  hold: HoldView,
  idempotent_replay: Schema.Boolean,
  balances: Balances
})
export const HoldsEnded = Schema.Struct({
  op: Schema.Literal("holds_ended"),
  /** Each hold named, with its status now and the points this command moved (0 on a repeat). */
  holds: Schema.Array(Schema.Struct({ hold_id: Schema.String, status: HoldStatus, points: Schema.Number, amount_minor: Schema.Number, currency: NullableString })),
  balances: Balances
})
export const CreditReversed = Schema.Struct({
  op: Schema.Literal("credit_reversed"),
  refunds: Schema.Array(Schema.Struct({ hold_id: Schema.String, refund_id: Schema.String, points_restored: Schema.Number, idempotent_replay: Schema.Boolean })),
  balances: Balances
})
export const EarnReversed = Schema.Struct({
  op: Schema.Literal("earn_reversed"),
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
  op: Schema.Literal("stay_applied"),
  outcome: Schema.Literals(["earned", "already_earned", "reversed", "nothing_to_reverse", "not_earned"]),
  detail: NullableString
})

export const CreditResults = [HoldPlaced, HoldsEnded, CreditReversed, EarnReversed, StayApplied] as const
