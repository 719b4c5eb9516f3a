import { Schema } from "effect"
import { refusalsOf } from "../shared/refusals.ts"

// How the loyalty actor refuses a command: one error type, each message declaring the codes it may refuse with.

export const RefusalCodes = [
  "MEMBER_NOT_FOUND", "MEMBER_INACTIVE", "INSUFFICIENT_POINTS", "IDEMPOTENCY_CONFLICT", "REWARD_NOT_FOUND", "REWARD_UNAVAILABLE",
  "PROGRAM_NOT_CONFIGURED", "CURRENCY_MISMATCH", "EARN_NOT_FOUND", "EARN_NOT_PENDING", "HOLD_NOT_FOUND", "HOLD_EXPIRED", "HOLD_NOT_ACTIVE",
  "HOLD_NOT_CONFIRMED", "HOUSEHOLD_NOT_FOUND", "HOUSEHOLD_MEMBER_TAKEN", "HOUSEHOLD_LIMIT", "NOT_HOUSEHOLD_MEMBER",
  "EXPERIENCE_NOT_FOUND", "AUCTION_CLOSED", "BID_TOO_LOW", "ACTION_LIMIT_REACHED", "POINTS_EXCEED_PENDING",
  "AMOUNT_TOO_SMALL"
] as const
export type RefusalCode = typeof RefusalCodes[number]

/** Why the loyalty actor refused a write (nothing of it was stored); `details` names the offending field. */
export class LoyaltyRefused extends Schema.TaggedError<LoyaltyRefused>()("LoyaltyRefused", {
  code: Schema.Literals(RefusalCodes),
  message: Schema.String,
  details: Schema.Record(Schema.String, Schema.Unknown)
}) {}

/** A refusal with one of the codes `C`. */
export type Refused<C extends RefusalCode> = LoyaltyRefused & { readonly code: C }

/** The error of a message that refuses only with `codes` (LoyaltyRefused, its code narrowed: actors/shared/refusals.ts). */
export const refusedWith = refusalsOf(LoyaltyRefused)
