import { opUnionMessage } from "../runtime/opUnion.ts"
import { AuctionMessages } from "./auctionProtocol.ts"
import { CreditMessages } from "./creditProtocol.ts"
import { HouseholdMessages } from "./householdProtocol.ts"
import { MemberMessages } from "./memberProtocol.ts"
import { LoyaltyRefused } from "./refusalProtocol.ts"

// DEPRECATED: remove in the release after this one (with `apply` in protocol.ts and actor.ts).
//
// Before one message per command, every loyalty command was the one message `apply`, its payload a union told apart by
// `op`, its answer another. During a rolling upgrade old ingresses still send it (workers are upgraded first, README
// "Upgrades"), and outbox rows old workers wrote may still hold it: the new workers answer it, in the old shape.
// Nothing of this release sends it.

/** Each message's `op` in the old union: its command's and its result's. */
export const LegacyOps = {
  enroll: { command: "enroll", result: "enrolled" },
  earn: { command: "earn", result: "earned" },
  redeem: { command: "redeem", result: "redeemed" },
  unsubscribe: { command: "unsubscribe", result: "unsubscribed" },
  resolveEarn: { command: "resolve_earn", result: "earn_resolved" },
  applyDiscount: { command: "discount", result: "discount_applied" },
  placeHold: { command: "hold", result: "hold_placed" },
  endHold: { command: "end_hold", result: "holds_ended" },
  creditReverse: { command: "credit_reverse", result: "credit_reversed" },
  reverseEarn: { command: "reverse_earn", result: "earn_reversed" },
  stayEvent: { command: "stay_event", result: "stay_applied" },
  householdCreate: { command: "household_create", result: "household_changed" },
  householdMembership: { command: "household_membership", result: "household_changed" },
  householdContribute: { command: "household_contribute", result: "contributed" },
  householdCredit: { command: "household_credit", result: "credited" },
  bidHold: { command: "bid_hold", result: "bid_held" },
  auctionBid: { command: "auction_bid", result: "bid_decided" },
  auctionClose: { command: "auction_close", result: "auction_closed" },
  auctionSettle: { command: "auction_settle", result: "auction_settled" }
} as const

/** The old `apply`: any command with its `op`, answered with the result's `op`; refused with any code. */
export const LegacyApply = opUnionMessage({ ...MemberMessages, ...CreditMessages, ...HouseholdMessages, ...AuctionMessages }, LegacyOps, LoyaltyRefused)
