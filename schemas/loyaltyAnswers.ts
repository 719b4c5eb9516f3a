import { Schema } from "effect"
import { ErrorDetail } from "./errors.ts"
import { listOf, ok } from "./list.ts"
import { Balances } from "./loyaltyBalances.ts"

// What the Loyalty REST family answers (issue 24: every answer typed). Write answers carry the member's balances
// flattened beside the operation's own fields, as they always have; the README's Loyalty section lists each field.

const S = Schema.String
const N = Schema.Number
const B = Schema.Boolean
const NullStr = Schema.NullOr(S)
const NullNum = Schema.NullOr(N)
const opt = Schema.optionalKey

/** The member and its balances after the operation. */
const member = { member_id: S, ...Balances.fields }
/** Balances of the one member an operation touched; absent when it touched several. */
const someMember = Object.fromEntries(Object.entries(member).map(([k, v]) => [k, opt(v)])) as { [K in keyof typeof member]: Schema.optionalKey<typeof member[K]> }
const EarnStatus = Schema.Literals(["pending", "confirmed"])
const RedeemStatus = Schema.Literals(["pending", "fulfilled"])
const HoldStatus = Schema.Literals(["active", "confirmed", "released", "expired", "reversed"])
const Rate = Schema.Struct({ point_value: N })

export const ProgramView = Schema.Struct({
  currency: S, points_per_unit: N, points_per_night: N, pending_days: N, expiry_months: NullNum, point_value: N,
  action_rules: Schema.Array(Schema.Struct({ action_type: S, points: N, per_member: S })),
  updated_at: S
})
export const TierView = Schema.Struct({
  tier_slug: S, tier_name: S, rank: N, threshold: N, basis: S, window: S, earn_multiplier: N
})
export const RewardView = Schema.Struct({
  reward_id: S, name: S, type: S, points_cost: N, auto_fulfill: B, stock_remaining: NullNum, active: B, created_at: S
})

const Tier = Schema.NullOr(Schema.Struct({ slug: S, name: S }))
const TierProgress = Schema.Struct({ qualifying_points: N, qualifying_nights: N, next_tier: NullStr, to_next_tier: NullNum, window: NullStr })
const NextExpiry = Schema.NullOr(Schema.Struct({ points: N, expires_at: S }))

/** A member's profile, balances (its lots now), tier and progress to the next one. */
export const MemberView = Schema.Struct({
  member_id: S, email: S, first_name: NullStr, last_name: NullStr, phone: NullStr, status: S, joined_at: S,
  ...Balances.fields,
  tier: Tier, tier_progress: TierProgress, next_expiry: NextExpiry
})
/** What a signed-in member, or a club reading for one, sees: tier and points, no internals. */
export const MemberBalanceView = Schema.Struct({
  member_id: S, tier: Tier, points_balance: N, points_available: N, points_pending: N, lifetime_points: N,
  tier_progress: TierProgress, next_expiry: NextExpiry
})
export const ClubMemberView = Schema.Struct({ email: S, first_name: NullStr, last_name: NullStr, joined_at: S, ...MemberBalanceView.fields })

export const MemberCheck = Schema.Struct({
  is_member: B,
  member_summary: Schema.NullOr(Schema.Struct({
    member_id: S, tier_name: NullStr, tier_slug: NullStr, points_balance: N, lifetime_points: N, joined_at: S
  }))
})

/** One movement of the ledger, with the balances after it. */
export const LedgerEntry = Schema.Struct({
  transaction_id: S, kind: S, points: N, pending_points: N, status: S, balance_after: N, pending_after: N, reason: NullStr,
  external_reference_id: NullStr, reservation_id: NullStr, reward_id: NullStr, redemption_id: NullStr, hold_id: NullStr,
  reverses_entry_id: NullStr, held_points: N, held_after: N, created_at: S
})
/** A member's ledger page; `items` is the same list under its old name, kept one release (deprecated). */
export const LedgerPage = Schema.Struct({
  member_id: S,
  transactions: Schema.Array(LedgerEntry),
  items: Schema.Array(LedgerEntry).annotate({ description: "deprecated: the same list as transactions, kept one release" }),
  next_cursor: NullStr
})

export const Enrolled = Schema.Struct({ member_id: S, is_new: B, reactivated: B, email: S, ...Balances.fields })
export const Unsubscribed = Schema.Struct({ ...member, status: Schema.Literal("unsubscribed"), already_unsubscribed: B })
/**
 * A retry recognised by its `external_reference_id`: answered without applying anything again. A retry with the same
 * `Idempotency-Key` header is answered with the first answer itself, byte for byte (this field then reads false, and
 * the `Idempotent-Replayed: true` header marks it).
 */
const IdempotentReplay = B.annotate({
  description: "true for a retry recognised by its external_reference_id (nothing applied again); an Idempotency-Key retry replays the first answer byte for byte, marked by the Idempotent-Replayed header"
})
export const Earned = Schema.Struct({
  ...member, transaction_id: S, status: EarnStatus, points_awarded: N, expires_at: NullStr, idempotent_replay: IdempotentReplay, points_deducted: N
})
export const EarnResolved = Schema.Struct({
  ...member, transaction_id: S, status: Schema.Literals(["confirmed", "voided"]), points_confirmed: N, points_voided: N, idempotent_replay: IdempotentReplay
})
const redemption = { redemption_id: S, transaction_id: S, status: RedeemStatus, reward_id: NullStr, points_deducted: N, idempotent_replay: B }
export const Redeemed = Schema.Struct({ ...member, ...redemption })
export const DiscountApplied = Schema.Struct({
  ...member, transaction_id: S, points_deducted: N, currency: S, discount_amount: N, reference_id: NullStr
})
export const RedemptionBatch = Schema.Struct({
  results: Schema.Array(Schema.Struct({
    index: N, status: Schema.Literals(["ok", "error"]), data: opt(Redeemed), error: opt(ErrorDetail)
  })),
  summary: Schema.Struct({ ok: N, error: N })
})
export const Conversion = Schema.Struct({ points: N, amount: N, currency: S, rate: Rate, rounding: S })

// Credit holds, reversals, actions, free nights, reports.

export const CreditQuote = Schema.Struct({
  member_id: S, points_available: N, amount_available: N, currency: S, rate: Rate, rounding: S,
  amount: opt(N), points_for_amount: opt(N), covered: opt(B)
})
/** A hold: `points_held` is this hold's (it replaces the member's total held; that is points_balance − points_available). */
export const HoldAnswer = Schema.Struct({
  ...member, hold_id: S, status: HoldStatus, reservation_id: S, currency: S, expires_at: S, amount: N, idempotent_replay: B
})
export const HoldConfirmed = Schema.Struct({
  ...member, hold_id: S, status: HoldStatus, points_deducted: N, amount: N, currency: NullStr, idempotent_replay: B
})
export const HoldsReleased = Schema.Struct({
  released: Schema.Literal(true), hold_id: NullStr, hold_status: S, points_released: N,
  holds: Schema.Array(Schema.Struct({ member_id: S, hold_id: S, hold_status: HoldStatus, points_released: N })),
  ...someMember
})
export const CreditReversed = Schema.Struct({
  reversed: Schema.Literal(true), hold_id: S, refund_id: S, points_restored: N, idempotent_replay: B,
  refunds: Schema.Array(Schema.Struct({ member_id: S, hold_id: S, refund_id: S, points_restored: N, idempotent_replay: B })),
  ...someMember
})
export const EarnReversed = Schema.Struct({
  reversed: Schema.Array(Schema.Struct({
    member_id: S, transaction_id: S, status: Schema.Literals(["reversed", "voided", "already_reversed", "already_voided"]),
    points_reversed: N, points_voided: N, points_unrecovered: N
  })),
  points_reversed: N, points_voided: N, points_unrecovered: N, idempotent_replay: B,
  ...someMember
})
export const ActionEarned = Schema.Struct({
  ...member, action_type: S, scope_key: NullStr, per_member: S,
  transaction_id: S, status: EarnStatus, points_awarded: N, expires_at: NullStr, idempotent_replay: B
})
export const FreeNightRedeemed = Schema.Struct({
  ...member, ...redemption, nights: N, delivery_method: S, voucher_code: NullStr
})
export const Calculation = Schema.Struct({
  points: N, qualifying_points: N, qualifying_nights: N, eligible: B, tier_slug: NullStr, tier_multiplier: N,
  breakdown: Schema.Array(Schema.Struct({ rule: S, points: N })), currency: S
})
export const Liability = Schema.Struct({
  points: Schema.Struct({ active: N, held: N, available: N, pending: N }),
  wallets: Schema.Struct({ active: N, held: N, pending: N }),
  expiring: Schema.Struct({ d30: N, d90: N, d365: N }),
  totals: Schema.Struct({ issued: N, redeemed: N, expired: N, reversed: N, restored: N }),
  redemption_rate: NullNum,
  breakage_rate: NullNum,
  value: Schema.Struct({ point_value: N, currency: NullStr, liability_amount: N, held_amount: N }),
  members: Schema.Struct({ total: N, active: N })
})
export const ReservationSnapshot = Schema.Struct({
  reservation_id: S,
  member_ids: Schema.Array(S),
  credit: Schema.Struct({
    holds: Schema.Array(Schema.Struct({
      hold_id: S, member_id: S, external_reference_id: NullStr, status: HoldStatus, points: N, currency: NullStr, amount: N,
      created_at: S, expires_at: S, confirmed_at: NullStr, released_at: NullStr, expired_at: NullStr, reversed_at: NullStr,
      refund_id: NullStr, points_restored: NullNum
    })),
    net_points_spent: N,
    net_amount: N
  }),
  earn: Schema.Struct({
    transactions: Schema.Array(Schema.Struct({
      transaction_id: S, member_id: S, points: N, status: Schema.Literals(["confirmed", "pending", "voided", "reversed"]), created_at: S
    })),
    points: N
  })
})

// Households and auctions.

export const HouseholdView = Schema.Struct({
  household_id: S, name: S, owner_member_id: S, created_at: S,
  members: Schema.Array(Schema.Struct({ member_id: S, email: S, role: Schema.Literals(["owner", "member"]), joined_at: S })),
  pooled_balance: N, pooled_available: N, next_expiry: NextExpiry, limits: Schema.Struct({ max_members: N }),
  /** add_member / remove_member: whether the request changed anything (false: already so). */
  changed: opt(B)
})
export const HouseholdContributed = Schema.Struct({
  ...member, transfer_id: S, household_id: S, points: N, idempotent_replay: B, transfer_status: Schema.Literal("accepted")
})
export const HouseholdRedeemed = Schema.Struct({
  household_id: S, member_id: S, ...redemption, pooled_balance: N, pooled_available: N
})

export const ExperienceView = Schema.Struct({
  experience_id: S, name: S, description: NullStr, hotel_id: NullStr, starting_bid: N, min_increment: N, ends_at: S,
  status: Schema.Literals(["open", "closed"]), current_high_bid: NullNum, min_next_bid: NullNum, bid_count: N,
  created_at: S, closed_at: NullStr,
  leader: Schema.NullOr(Schema.Struct({ bid_id: S, member_id: S, bid_points: N })),
  winner: Schema.NullOr(Schema.Struct({ bid_id: S, member_id: S, bid_points: N, redemption_id: NullStr })),
  /** The last 100 decided bids, newest first. */
  bids: opt(Schema.Array(Schema.Struct({
    bid_id: S, member_id: S, bid_points: N, status: S, refusal: NullStr, placed_at: S, decided_at: NullStr
  })))
})
/** A bid: `points_held` is this bid's hold (0 once outbid); the member's total held is `member_points_held`. */
export const BidPlaced = Schema.Struct({
  ...Balances.fields, member_points_held: N,
  bid_id: S, status: Schema.Literals(["leading", "outbid", "won"]), experience_id: S, member_id: S, bid_points: N, hold_id: S,
  current_high_bid: NullNum, min_next_bid: N, ends_at: S, auction_status: Schema.Literals(["open", "closed"]),
  replaced_hold_id: NullStr, idempotent_replay: B
})

// Loyalty SSO: the signed-in member and the club transfer.

export const ClubCode = Schema.Struct({ code: S, expires_in: N })
export const TransferToken = Schema.Struct({ transfer_token: S, token_type: Schema.Literal("Bearer"), expires_in: N, member_id: S })

export { listOf, ok }
