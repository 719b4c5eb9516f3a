import { Schema } from "effect"
import { Balances } from "./balances.ts"

// Loyalty-actor commands of experience auctions. The auction is the loyalty actor keyed by its experience id (in
// `member_id`, the actor key, as a household is): its bids and its close are applied one at a time. A bid is a hold
// on the bidder, placed by the bidder's actor, which then tells the auction (outbox) — the ingress also asks the
// auction directly for the synchronous answer; the auction applies a hold's bid once, whichever comes first.

/** The bidder's leg (keyed by the member): a bid hold on the member's lots, the auction told through the outbox. */
export const BidHold = Schema.Struct({
  op: Schema.Literal("bid_hold"),
  member_id: Schema.String,
  auction_id: Schema.String,
  points: Schema.Number,
  external_reference_id: Schema.String
})
export type BidHold = typeof BidHold.Type

/** The auction's leg (keyed by the experience id): accepts or refuses the bid a hold backs, once per hold. */
export const AuctionBid = Schema.Struct({
  op: Schema.Literal("auction_bid"),
  member_id: Schema.String,
  bidder_member_id: Schema.String,
  hold_id: Schema.String,
  points: Schema.Number,
  /** When the bidder's hold was placed: a bid placed before ends_at counts until the auction is closed. */
  placed_at: Schema.String
})
export type AuctionBid = typeof AuctionBid.Type

/** Closes the auction (keyed by the experience id) once its end and grace have passed: the winner pays. */
export const AuctionClose = Schema.Struct({ op: Schema.Literal("auction_close"), member_id: Schema.String })
export type AuctionClose = typeof AuctionClose.Type

/** The winner's leg of a close (keyed by the member): its bid hold confirmed into a redemption, once per auction. */
export const AuctionSettle = Schema.Struct({
  op: Schema.Literal("auction_settle"),
  member_id: Schema.String,
  auction_id: Schema.String,
  hold_id: Schema.String,
  points: Schema.Number,
  name: Schema.String
})
export type AuctionSettle = typeof AuctionSettle.Type

export const AuctionCommands = [BidHold, AuctionBid, AuctionClose, AuctionSettle] as const

export const BidHeld = Schema.Struct({
  op: Schema.Literal("bid_held"),
  hold_id: Schema.String,
  points_held: Schema.Number,
  placed_at: Schema.String,
  /** The member's earlier bid hold on this auction that this one replaced (released in the same transaction). */
  replaced_hold_id: Schema.NullOr(Schema.String),
  idempotent_replay: Schema.Boolean,
  balances: Balances
})

const AuctionView = {
  auction_id: Schema.String,
  auction_status: Schema.Literals(["open", "closed"]),
  current_high_bid: Schema.NullOr(Schema.Number),
  min_next_bid: Schema.Number,
  ends_at: Schema.String
}

export const BidDecided = Schema.Struct({
  op: Schema.Literal("bid_decided"),
  bid_id: Schema.String,
  /** Now: leading (or won), outbid, or refused (with why). */
  status: Schema.Literals(["leading", "outbid", "won", "refused"]),
  refusal: Schema.NullOr(Schema.Literals(["AUCTION_CLOSED", "BID_TOO_LOW"])),
  /** For a refused bid: the auction's high bid and next minimum when it was refused. */
  refused_at: Schema.NullOr(Schema.Struct({ current_high_bid: Schema.NullOr(Schema.Number), min_next_bid: Schema.Number })),
  ...AuctionView
})

export const AuctionClosed = Schema.Struct({ op: Schema.Literal("auction_closed"), closed_now: Schema.Boolean, ...AuctionView })

export const AuctionSettled = Schema.Struct({
  op: Schema.Literal("auction_settled"),
  redemption_id: Schema.NullOr(Schema.String),
  points_deducted: Schema.Number,
  idempotent_replay: Schema.Boolean
})

export const AuctionResults = [BidHeld, BidDecided, AuctionClosed, AuctionSettled] as const
