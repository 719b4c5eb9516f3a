import { Schema } from "effect"
import { webhookEnvelope } from "./webhookEnvelope.ts"

// The `data` of the loyalty webhooks, documented in /openapi.json under `webhooks` (OpenAPI 3.1) and in the README.

const Balances = Schema.Struct({
  points_balance: Schema.Number, points_available: Schema.Number, points_pending: Schema.Number, points_held: Schema.Number, lifetime_points: Schema.Number
})
const Tier = Schema.NullOr(Schema.Struct({ slug: Schema.String, name: Schema.String }))

export const MemberEnrolledData = Schema.Struct({
  member: Schema.Struct({
    member_id: Schema.String, email: Schema.String, first_name: Schema.NullOr(Schema.String), last_name: Schema.NullOr(Schema.String), phone: Schema.NullOr(Schema.String)
  }),
  /** false with reactivated: an unsubscribed member enrolled again. */
  is_new: Schema.Boolean,
  reactivated: Schema.Boolean,
  balances: Balances
})

export const PointsEarnedData = Schema.Struct({
  member_id: Schema.String,
  transaction_id: Schema.String,
  /** pending: earned, not yet spendable; confirmed: spendable (sent again when a pending earn is confirmed). */
  status: Schema.Literals(["pending", "confirmed"]),
  points: Schema.Number,
  reason: Schema.NullOr(Schema.String),
  reservation_id: Schema.NullOr(Schema.String),
  action_type: Schema.NullOr(Schema.String),
  expires_at: Schema.NullOr(Schema.String),
  balances: Balances
})

export const TierChangedData = Schema.Struct({
  member_id: Schema.String,
  previous: Tier,
  tier: Tier,
  qualifying_points: Schema.Number,
  qualifying_nights: Schema.Number
})

export const FulfilmentRequiredData = Schema.Struct({
  member_id: Schema.String,
  redemption_id: Schema.String,
  transaction_id: Schema.String,
  status: Schema.Literal("pending"),
  reward: Schema.NullOr(Schema.Struct({ reward_id: Schema.String, name: Schema.String, type: Schema.String })),
  quantity: Schema.Number,
  points: Schema.Number,
  notes: Schema.NullOr(Schema.String)
})

export const PointsReversedData = Schema.Struct({
  member_id: Schema.String,
  /** The earn reversed (a cancelled stay, a no-show, a correction). */
  transaction_id: Schema.String,
  status: Schema.Literals(["reversed", "voided"]),
  points_reversed: Schema.Number,
  points_voided: Schema.Number,
  /** Already spent or held: not taken back (the balance never goes below zero). */
  points_unrecovered: Schema.Number,
  reason: Schema.NullOr(Schema.String),
  balances: Balances
})

export const LoyaltyEventTypes = [
  "loyalty.member.enrolled", "loyalty.points.earned", "loyalty.points.reversed", "loyalty.tier.changed", "loyalty.redemption.fulfilment_required"
] as const

const envelope = webhookEnvelope

/** Event type → the body a subscription receives. */
export const LoyaltyWebhooks: ReadonlyArray<readonly [string, Schema.Top]> = [
  ["loyalty.member.enrolled", envelope("loyalty.member.enrolled", MemberEnrolledData)],
  ["loyalty.points.earned", envelope("loyalty.points.earned", PointsEarnedData)],
  ["loyalty.points.reversed", envelope("loyalty.points.reversed", PointsReversedData)],
  ["loyalty.tier.changed", envelope("loyalty.tier.changed", TierChangedData)],
  ["loyalty.redemption.fulfilment_required", envelope("loyalty.redemption.fulfilment_required", FulfilmentRequiredData)]
]
