import { Schema } from "effect"
import { ok } from "./list.ts"
import { Enrolled } from "./loyaltyAnswers.ts"
import { BatchItems, boundedInt, CurrencyCode, maxLength, NonEmptyString, oneOf, SafeString, Uuid } from "./common.ts"

// The Loyalty REST family's public contract: programme set-up, members, earning and redeeming points.

const opt = Schema.optionalKey
const nullable = <S extends Schema.Top>(s: S) => Schema.optionalKey(Schema.NullOr(s))
/** Points are whole numbers: the ledger is exact. */
/** A billion points in one operation is beyond any programme; it also keeps every value inside a PostgreSQL integer. */
const MAX_POINTS = 1_000_000_000
const Points = boundedInt(1, MAX_POINTS).annotate({ message: `must be a whole number of points from 1 to ${MAX_POINTS}` })
const NonNegativeInt = boundedInt(0, MAX_POINTS).annotate({ message: `must be a whole number from 0 to ${MAX_POINTS}` })
const NonNegative = Schema.Finite.check(Schema.isBetween({ minimum: 0, maximum: 1e12 })).annotate({ message: "must be a number from 0 to 1e12" })
const Reference = NonEmptyString.check(Schema.makeFilter((s: string) => [...s].length <= 200 || "must be at most 200 characters"))

export const ActionType = NonEmptyString.check(Schema.makeFilter((s: string) => /^[a-z0-9][a-z0-9_-]{0,49}$/.test(s) || "must be 1-50 lower-case letters, digits, - or _"))
/** How often one member may earn an action: once ever, once per scope_key (a review per reservation), or without limit. */
export const ActionLimits = ["once", "once_per_scope", "unlimited"] as const
export type ActionLimit = typeof ActionLimits[number]
export const ActionRule = Schema.Struct({ action_type: ActionType, points: Points, per_member: oneOf(ActionLimits) })
export type ActionRule = typeof ActionRule.Type

export const ProgramRequest = Schema.Struct({
  currency: CurrencyCode,
  points_per_unit: NonNegative,
  points_per_night: opt(NonNegativeInt),
  pending_days: opt(NonNegativeInt),
  expiry_months: nullable(Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 120 })).annotate({ message: "must be a whole number of months, 1 to 120" })),
  point_value: NonNegative,
  /** Rules of /actions; a PUT replaces them (omitted: none). */
  action_rules: opt(Schema.Array(ActionRule).check(Schema.makeFilter((a: ReadonlyArray<unknown>) => a.length <= 50 || "at most 50 action rules")))
})
export type ProgramRequest = typeof ProgramRequest.Type

export const TierBases = ["qualifying_points", "qualifying_nights"] as const
export const TierWindows = ["lifetime", "calendar_year", "rolling_12_months"] as const
export const TierInput = Schema.Struct({
  tier_slug: NonEmptyString.check(Schema.makeFilter((s: string) => /^[a-z0-9][a-z0-9_-]{0,49}$/.test(s) || "must be 1-50 lower-case letters, digits, - or _")),
  tier_name: NonEmptyString.check(Schema.makeFilter((s: string) => [...s].length <= 100 || "must be at most 100 characters")),
  threshold: NonNegativeInt,
  basis: oneOf(TierBases),
  window: opt(oneOf(TierWindows)),
  earn_multiplier: opt(Schema.Finite.check(Schema.isBetween({ minimum: 0.01, maximum: 100 })).annotate({ message: "must be a number from 0.01 to 100" }))
})
export const TiersRequest = Schema.Array(TierInput).check(Schema.makeFilter((a: ReadonlyArray<unknown>) => a.length <= 20 || "at most 20 tiers"))
export type TiersRequest = typeof TiersRequest.Type

export const RewardTypes = ["free_night", "upgrade", "amenity", "experience", "voucher", "credit", "other"] as const
export const RewardRequest = Schema.Struct({
  name: NonEmptyString.check(Schema.makeFilter((s: string) => [...s].length <= 200 || "must be at most 200 characters")),
  type: oneOf(RewardTypes),
  points_cost: Points,
  auto_fulfill: Schema.Boolean,
  stock: nullable(NonNegativeInt)
})
export type RewardRequest = typeof RewardRequest.Type

export const EnrollRequest = Schema.Struct({
  email: SafeString,
  first_name: nullable(maxLength(100)),
  last_name: nullable(maxLength(100)),
  phone: nullable(maxLength(40)),
  loyalty_balance: opt(NonNegativeInt)
})
export type EnrollRequest = typeof EnrollRequest.Type

const member = { member_id: opt(Uuid), email: opt(SafeString) }

export const UnsubscribeRequest = Schema.Struct({ ...member, reason: nullable(maxLength(500)) })
export type UnsubscribeRequest = typeof UnsubscribeRequest.Type

export const ResolveEarnRequest = Schema.Struct({ transaction_id: Uuid })
export type ResolveEarnRequest = typeof ResolveEarnRequest.Type
/** A confirm may post less than the pending earn (the final folio): the rest is voided. */
export const ConfirmEarnRequest = Schema.Struct({ transaction_id: Uuid, points: opt(Points) })
export type ConfirmEarnRequest = typeof ConfirmEarnRequest.Type

export const DiscountRequest = Schema.Struct({
  ...member,
  points: opt(Points),
  amount: opt(Schema.Finite.check(Schema.isGreaterThan(0), Schema.isLessThanOrEqualTo(1e12)).annotate({ message: "must be a number above 0, at most 1e12" })),
  currency: opt(CurrencyCode),
  reservation_id: nullable(Reference),
  /** Metadata only: not a retry key (a resend deducts again). */
  reference_id: nullable(maxLength(200))
})
export type DiscountRequest = typeof DiscountRequest.Type

export const EarnRequest = Schema.Struct({
  ...member,
  external_reference_id: opt(Reference),
  points: opt(Points),
  amount: opt(NonNegative),
  currency: opt(CurrencyCode),
  nights: opt(NonNegativeInt),
  check_in: nullable(SafeString),
  check_out: nullable(SafeString),
  reservation_id: nullable(Reference),
  hotel: nullable(SafeString),
  status: opt(oneOf(["pending", "confirmed"])),
  reason: nullable(maxLength(500))
})
export type EarnRequest = typeof EarnRequest.Type

export const RedeemRequest = Schema.Struct({
  ...member,
  external_reference_id: opt(Reference),
  reward_id: opt(Uuid),
  points: opt(Points),
  status: opt(oneOf(["pending", "fulfilled"])),
  notes: nullable(maxLength(500))
})
export type RedeemRequest = typeof RedeemRequest.Type

/** At most 100 redemptions, each a /redeem body with its own key, each applied (or refused) on its own. */
export const RedemptionBatchRequest = Schema.Struct({
  items: BatchItems("RedeemRequest", "1 to 100 /redeem requests, each decoded and answered on its own")
})

/** A new member (answered 201; an existing one is answered 200 with the same shape). */
export class MemberEnrolled extends Schema.Class<MemberEnrolled>("MemberEnrolled")(ok(Enrolled)) {}
