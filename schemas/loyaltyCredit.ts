import { Schema } from "effect"
import { boundedInt, CurrencyCode, maxLength, NonEmptyString, oneOf, SafeString, Uuid } from "./common.ts"
import { ActionType } from "./loyalty.ts"

// Loyalty requests beyond earning and redeeming: credit holds (points as payment on a reservation), reversals of
// earnings, action earnings, free nights and the earning calculator.

const opt = Schema.optionalKey
const nullable = <S extends Schema.Top>(s: S) => Schema.optionalKey(Schema.NullOr(s))
const MAX_POINTS = 1_000_000_000
const Points = boundedInt(1, MAX_POINTS).annotate({ message: `must be a whole number of points from 1 to ${MAX_POINTS}` })
const Money = Schema.Finite.check(Schema.isGreaterThan(0), Schema.isLessThanOrEqualTo(1e10)).annotate({ message: "must be a number above 0, at most 1e10" })
const NonNegative = Schema.Finite.check(Schema.isBetween({ minimum: 0, maximum: 1e12 })).annotate({ message: "must be a number from 0 to 1e12" })
const Reference = NonEmptyString.check(Schema.makeFilter((s: string) => [...s].length <= 200 || "must be at most 200 characters"))
const member = { member_id: opt(Uuid), email: opt(SafeString) }

/** A hold lives 30 minutes unless told otherwise, at least a minute, at most 30 days. */
export const HOLD_TTL_DEFAULT = 1800
export const HOLD_TTL_MAX = 30 * 86_400

export const CreditHoldRequest = Schema.Struct({
  ...member,
  reservation_id: Reference,
  amount: opt(Money),
  currency: opt(CurrencyCode),
  points: opt(Points),
  external_reference_id: opt(Reference),
  ttl_seconds: opt(boundedInt(60, HOLD_TTL_MAX))
})
export type CreditHoldRequest = typeof CreditHoldRequest.Type

/** A hold by its hold_id or by the external_reference_id that placed it: exactly one. */
export const CreditConfirmRequest = Schema.Struct({ hold_id: opt(Uuid), external_reference_id: opt(Reference) })
export type CreditConfirmRequest = typeof CreditConfirmRequest.Type

/** A hold by hold_id, by its external_reference_id, or every active hold of a reservation: exactly one. */
export const CreditReleaseRequest = Schema.Struct({ hold_id: opt(Uuid), external_reference_id: opt(Reference), reservation_id: opt(Reference) })
export type CreditReleaseRequest = typeof CreditReleaseRequest.Type

/** A confirmed hold by hold_id, or every confirmed hold of a reservation: exactly one. */
export const CreditReverseRequest = Schema.Struct({ hold_id: opt(Uuid), reservation_id: opt(Reference), reason: nullable(maxLength(500)) })
export type CreditReverseRequest = typeof CreditReverseRequest.Type

export const ReverseReasons = ["cancellation", "no_show", "refund", "correction"] as const
/** An earn by transaction_id, or every earn of a reservation: exactly one. */
export const ReverseRequest = Schema.Struct({ transaction_id: opt(Uuid), reservation_id: opt(Reference), reason: opt(oneOf(ReverseReasons)) })
export type ReverseRequest = typeof ReverseRequest.Type

export const ActionRequest = Schema.Struct({
  ...member,
  action_type: ActionType,
  /** Absent: the programme's rule for the action type decides. */
  points: opt(Points),
  /** What a once-per-scope action is about (e.g. the reviewed reservation's id). */
  scope_key: opt(Reference),
  external_reference_id: opt(Reference),
  reason: nullable(maxLength(500))
})
export type ActionRequest = typeof ActionRequest.Type

/** What a stay would earn, without writing anything (the member, when named, brings its tier's multiplier). */
export const CalculateRequest = Schema.Struct({
  ...member,
  amount: NonNegative,
  currency: CurrencyCode,
  nights: opt(boundedInt(0, 10_000)),
  check_in: nullable(SafeString),
  hotel: nullable(SafeString)
})
export type CalculateRequest = typeof CalculateRequest.Type

export const DeliveryMethods = ["voucher", "manual", "engine_api"] as const
export const FreeNightRequest = Schema.Struct({
  ...member,
  external_reference_id: opt(Reference),
  reward_id: Uuid,
  nights: opt(boundedInt(1, 30)),
  hotel: nullable(maxLength(200)),
  check_in: nullable(SafeString),
  check_out: nullable(SafeString),
  delivery_method: oneOf(DeliveryMethods),
  status: opt(oneOf(["pending", "fulfilled"])),
  notes: nullable(maxLength(500))
})
export type FreeNightRequest = typeof FreeNightRequest.Type

export const HouseholdActions = ["create", "add_member", "remove_member", "contribute", "redeem"] as const
/**
 * One body for every household action: create { member_id|email (the owner), name }; add_member / remove_member {
 * household_id, member_id|email }; contribute { household_id, member_id|email, points, external_reference_id };
 * redeem { household_id, member_id|email (a member redeeming), reward_id | points, status?, notes?, external_reference_id }.
 */
export const HouseholdRequest = Schema.Struct({
  action: oneOf(HouseholdActions),
  household_id: opt(Uuid),
  ...member,
  name: opt(NonEmptyString.check(Schema.makeFilter((s: string) => [...s].length <= 100 || "must be at most 100 characters"))),
  points: opt(Points),
  reward_id: opt(Uuid),
  status: opt(oneOf(["pending", "fulfilled"])),
  notes: nullable(maxLength(500)),
  external_reference_id: opt(Reference)
})
export type HouseholdRequest = typeof HouseholdRequest.Type
