import { Schema } from "effect"
import * as ActorProtocol from "../../streams/ActorProtocol.ts"

const opt = <S extends Schema.Top>(s: S) => Schema.optional(s)
const NullableString = Schema.NullOr(Schema.String)

export { Balances } from "./balances.ts"
import { Balances } from "./balances.ts"
import { CreditCommands, CreditResults } from "./creditProtocol.ts"
import { HouseholdCommands, HouseholdResults } from "./householdProtocol.ts"
import { AuctionCommands, AuctionResults } from "./auctionProtocol.ts"

export const Enroll = Schema.Struct({
  op: Schema.Literal("enroll"),
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
  op: Schema.Literal("earn"),
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
  op: Schema.Literal("redeem"),
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
export const Unsubscribe = Schema.Struct({
  op: Schema.Literal("unsubscribe"),
  member_id: Schema.String,
  reason: NullableString
})
export type Unsubscribe = typeof Unsubscribe.Type

/** Confirms (spendable, counted in lifetime and tier totals) or voids a pending earn, by its transaction_id. */
export const ResolveEarn = Schema.Struct({
  op: Schema.Literal("resolve_earn"),
  member_id: Schema.String,
  transaction_id: Schema.String,
  move: Schema.Literals(["confirm", "void"]),
  /** A confirm of part of the pending points (the rest is voided); absent: all of them. */
  points: opt(Schema.Number)
})
export type ResolveEarn = typeof ResolveEarn.Type

/** Points spent as a money discount. Deliberately not idempotent (spec): `reference_id` is stored as metadata only. */
export const ApplyDiscount = Schema.Struct({
  op: Schema.Literal("discount"),
  member_id: Schema.String,
  points: opt(Schema.Number),
  /** Minor units (cents) of the programme currency, when the discount is given as money. */
  amount_minor: opt(Schema.Number),
  currency: opt(Schema.String),
  reservation_id: NullableString,
  reference_id: NullableString
})
export type ApplyDiscount = typeof ApplyDiscount.Type

export const LoyaltyCommand = Schema.Union([Enroll, Earn, Redeem, Unsubscribe, ResolveEarn, ApplyDiscount, ...CreditCommands, ...HouseholdCommands, ...AuctionCommands])
export type LoyaltyCommand = typeof LoyaltyCommand.Type

export const Enrolled = Schema.Struct({
  op: Schema.Literal("enrolled"),
  member_id: Schema.String,
  is_new: Schema.Boolean,
  /** An unsubscribed member enrolled again. */
  reactivated: Schema.Boolean,
  balances: Balances
})
export const Earned = Schema.Struct({
  op: Schema.Literal("earned"),
  transaction_id: Schema.String,
  status: Schema.Literals(["pending", "confirmed"]),
  points_awarded: Schema.Number,
  expires_at: NullableString,
  idempotent_replay: Schema.Boolean,
  balances: Balances
})
export const Redeemed = Schema.Struct({
  op: Schema.Literal("redeemed"),
  redemption_id: Schema.String,
  transaction_id: Schema.String,
  status: Schema.Literals(["pending", "fulfilled"]),
  reward_id: NullableString,
  points_deducted: Schema.Number,
  idempotent_replay: Schema.Boolean,
  balances: Balances
})
export const Unsubscribed = Schema.Struct({
  op: Schema.Literal("unsubscribed"),
  member_id: Schema.String,
  /** Already unsubscribed before this request. */
  was_unsubscribed: Schema.Boolean,
  balances: Balances
})
export const EarnResolved = Schema.Struct({
  op: Schema.Literal("earn_resolved"),
  transaction_id: Schema.String,
  status: Schema.Literals(["confirmed", "voided"]),
  points_confirmed: Schema.Number,
  points_voided: Schema.Number,
  idempotent_replay: Schema.Boolean,
  balances: Balances
})
export const DiscountApplied = Schema.Struct({
  op: Schema.Literal("discount_applied"),
  transaction_id: Schema.String,
  points_deducted: Schema.Number,
  discount_minor: Schema.Number,
  currency: Schema.String,
  balances: Balances
})
export const LoyaltyResult = Schema.Union([Enrolled, Earned, Redeemed, Unsubscribed, EarnResolved, DiscountApplied, ...CreditResults, ...HouseholdResults, ...AuctionResults])
export type LoyaltyResult = typeof LoyaltyResult.Type

export const RefusalCodes = [
  "MEMBER_NOT_FOUND", "MEMBER_INACTIVE", "INSUFFICIENT_POINTS", "IDEMPOTENCY_CONFLICT", "REWARD_NOT_FOUND", "REWARD_UNAVAILABLE",
  "PROGRAM_NOT_CONFIGURED", "CURRENCY_MISMATCH", "EARN_NOT_FOUND", "EARN_NOT_PENDING", "HOLD_NOT_FOUND", "HOLD_EXPIRED", "HOLD_NOT_ACTIVE",
  "HOLD_NOT_CONFIRMED", "HOUSEHOLD_NOT_FOUND", "HOUSEHOLD_MEMBER_TAKEN", "HOUSEHOLD_LIMIT", "NOT_HOUSEHOLD_MEMBER",
  "EXPERIENCE_NOT_FOUND", "AUCTION_CLOSED", "BID_TOO_LOW", "ACTION_LIMIT_REACHED", "POINTS_EXCEED_PENDING",
  "AMOUNT_TOO_SMALL"
] as const
export type RefusalCode = typeof RefusalCodes[number]

/** Why the member actor refused a write (nothing of it was stored); `details` names the offending field. */
export class LoyaltyRefused extends Schema.TaggedError<LoyaltyRefused>()("LoyaltyRefused", {
  code: Schema.Literals(RefusalCodes),
  message: Schema.String,
  details: Schema.Record(Schema.String, Schema.Unknown)
}) {}

/**
 * The loyalty member actor, keyed by member_id (the ingress resolves an email to it first): every write of one member
 * is applied in order by one owner, so a redemption always sees the one before it.
 */
export const LoyaltyProtocol = ActorProtocol.make("loyalty", {
  key: (p) => p.member_id,
  messages: {
    apply: ActorProtocol.message({ payload: LoyaltyCommand, success: LoyaltyResult, error: LoyaltyRefused })
  }
})
