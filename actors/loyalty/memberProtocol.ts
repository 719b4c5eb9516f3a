import { Schema } from "effect"
import * as ActorProtocol from "../../streams/ActorProtocol.ts"
import { Balances } from "./balances.ts"
import { refusedWith } from "./refusalProtocol.ts"

// Member-actor messages of membership and of earning and spending points (keyed by the member's id, `member_id`).

const opt = <S extends Schema.Top>(s: S) => Schema.optional(s)
const NullableString = Schema.NullOr(Schema.String)

export const Enroll = Schema.Struct({
  member_id: Schema.String,
  email: Schema.String,
  first_name: opt(NullableString),
  last_name: opt(NullableString),
  phone: opt(NullableString),
  /** Opening balance of a new member, or the balance a re-enrolment sets; absent on a re-enrolment: points kept. */
  loyalty_balance: opt(Schema.Number)
})
export type Enroll = typeof Enroll.Type

export const Stay = Schema.Struct({
  amount: Schema.Number,
  currency: Schema.String,
  nights: Schema.Number,
  reservation_id: NullableString,
  check_in: NullableString,
  check_out: NullableString,
  hotel: NullableString
})
export type Stay = typeof Stay.Type

export const Earn = Schema.Struct({
  member_id: Schema.String,
  external_reference_id: Schema.String,
  /** Explicit points, or a stay the programme's rate turns into points (exactly one, checked at the ingress). */
  points: opt(Schema.Number),
  stay: opt(Stay),
  status: Schema.Literals(["pending", "confirmed"]),
  reason: NullableString,
  /** An action earning (/actions): its key is scoped to actions, its reason names the action. */
  action_type: opt(Schema.String),
  /** A limited action's claim key ('' once per member, else the scope_key): a second claim is ACTION_LIMIT_REACHED. */
  action_scope: opt(Schema.String)
})
export type Earn = typeof Earn.Type

export const Redeem = Schema.Struct({
  member_id: Schema.String,
  external_reference_id: Schema.String,
  reward_id: opt(Schema.String),
  points: opt(Schema.Number),
  /** Units of the reward (a free night's nights): points and stock × quantity. */
  quantity: opt(Schema.Number),
  /** Absent: the reward's auto_fulfill decides (fulfilled when true), a points-only redemption is fulfilled. */
  status: opt(Schema.Literals(["pending", "fulfilled"])),
  notes: NullableString
})
export type Redeem = typeof Redeem.Type

/** Leaves the programme: points and lots are kept (a re-enrolment reactivates them); earning and spending stop. */
export const Unsubscribe = Schema.Struct({ member_id: Schema.String, reason: NullableString })
export type Unsubscribe = typeof Unsubscribe.Type

/** Confirms (spendable, counted in lifetime and tier totals) or voids a pending earn, by its transaction_id. */
export const ResolveEarn = Schema.Struct({
  member_id: Schema.String,
  transaction_id: Schema.String,
  move: Schema.Literals(["confirm", "void"]),
  /** A confirm of part of the pending points (the rest is voided); absent: all of them. */
  points: opt(Schema.Number)
})
export type ResolveEarn = typeof ResolveEarn.Type

/** Points spent as a money discount. Deliberately not idempotent (spec): `reference_id` is stored as metadata only. */
export const ApplyDiscount = Schema.Struct({
  member_id: Schema.String,
  points: opt(Schema.Number),
  /** Minor units (cents) of the programme currency, when the discount is given as money. */
  amount_minor: opt(Schema.Number),
  currency: opt(Schema.String),
  reservation_id: NullableString,
  reference_id: NullableString
})
export type ApplyDiscount = typeof ApplyDiscount.Type

export const Enrolled = Schema.Struct({
  member_id: Schema.String,
  is_new: Schema.Boolean,
  /** An unsubscribed member enrolled again. */
  reactivated: Schema.Boolean,
  balances: Balances
})
export type Enrolled = typeof Enrolled.Type

export const Earned = Schema.Struct({
  transaction_id: Schema.String,
  status: Schema.Literals(["pending", "confirmed"]),
  points_awarded: Schema.Number,
  expires_at: NullableString,
  idempotent_replay: Schema.Boolean,
  balances: Balances
})
export type Earned = typeof Earned.Type

export const Redeemed = Schema.Struct({
  redemption_id: Schema.String,
  transaction_id: Schema.String,
  status: Schema.Literals(["pending", "fulfilled"]),
  reward_id: NullableString,
  points_deducted: Schema.Number,
  idempotent_replay: Schema.Boolean,
  balances: Balances
})
export type Redeemed = typeof Redeemed.Type

export const Unsubscribed = Schema.Struct({
  member_id: Schema.String,
  /** Already unsubscribed before this request. */
  was_unsubscribed: Schema.Boolean,
  balances: Balances
})
export type Unsubscribed = typeof Unsubscribed.Type

export const EarnResolved = Schema.Struct({
  transaction_id: Schema.String,
  status: Schema.Literals(["confirmed", "voided"]),
  points_confirmed: Schema.Number,
  points_voided: Schema.Number,
  idempotent_replay: Schema.Boolean,
  balances: Balances
})
export type EarnResolved = typeof EarnResolved.Type

export const DiscountApplied = Schema.Struct({
  transaction_id: Schema.String,
  points_deducted: Schema.Number,
  discount_minor: Schema.Number,
  currency: Schema.String,
  balances: Balances
})
export type DiscountApplied = typeof DiscountApplied.Type

const message = ActorProtocol.message

export const MemberMessages = {
  /** Enrols the member, or enrols it again (refreshing its profile): never refused. */
  enroll: message({ payload: Enroll, success: Enrolled }),
  earn: message({
    payload: Earn,
    success: Earned,
    error: refusedWith(["MEMBER_NOT_FOUND", "MEMBER_INACTIVE", "IDEMPOTENCY_CONFLICT", "ACTION_LIMIT_REACHED", "PROGRAM_NOT_CONFIGURED", "CURRENCY_MISMATCH"])
  }),
  redeem: message({
    payload: Redeem,
    success: Redeemed,
    error: refusedWith(["MEMBER_NOT_FOUND", "MEMBER_INACTIVE", "IDEMPOTENCY_CONFLICT", "REWARD_NOT_FOUND", "REWARD_UNAVAILABLE", "INSUFFICIENT_POINTS"])
  }),
  unsubscribe: message({ payload: Unsubscribe, success: Unsubscribed, error: refusedWith(["MEMBER_NOT_FOUND"]) }),
  resolveEarn: message({ payload: ResolveEarn, success: EarnResolved, error: refusedWith(["EARN_NOT_FOUND", "EARN_NOT_PENDING", "POINTS_EXCEED_PENDING"]) }),
  applyDiscount: message({
    payload: ApplyDiscount,
    success: DiscountApplied,
    error: refusedWith(["MEMBER_NOT_FOUND", "MEMBER_INACTIVE", "PROGRAM_NOT_CONFIGURED", "CURRENCY_MISMATCH", "AMOUNT_TOO_SMALL", "INSUFFICIENT_POINTS"])
  })
}
