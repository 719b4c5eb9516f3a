import { Schema } from "effect"
import * as ActorProtocol from "../../streams/ActorProtocol.ts"
import { Balances } from "./balances.ts"
import { refusedWith } from "./refusalProtocol.ts"

// Loyalty-actor messages of experience auctions. The auction is the loyalty actor keyed by its experience id (in
// `member_id`, the actor key, as a household is): its bids and its close are applied one at a time. A bid is a hold
// on the bidder, placed by the bidder's actor, which then tells the auction (outbox) — the ingress also asks the
// auction directly for the synchronous answer; the auction applies a hold's bid once, whichever comes first.

/** The bidder's leg (keyed by the member): a bid hold on the member's lots, the auction told through the outbox. */
export const BidHold = Schema.Struct({
  member_id: Schema.String,
  auction_id: Schema.String,
  points: Schema.Number,
  external_reference_id: Schema.String
})
export type BidHold = typeof BidHold.Type

/** The auction's leg (keyed by the experience id): accepts or refuses the bid a hold backs, once per hold. */
export const AuctionBid = Schema.Struct({
  member_id: Schema.String,
  bidder_member_id: Schema.String,
  hold_id: Schema.String,
  points: Schema.Number,
  /** When the bidder's hold was placed: a bid placed before ends_at counts until the auction is closed. */
  placed_at: Schema.String
})
export type AuctionBid = typeof AuctionBid.Type

/** Closes the auction (keyed by the experience id) once its end and grace have passed: the winner pays. */
export const AuctionClose = Schema.Struct({ member_id: Schema.String })
export type AuctionClose = typeof AuctionClose.Type

/** The winner's leg of a close (keyed by the member): its bid hold confirmed into a redemption, once per auction. */
export const AuctionSettle = Schema.Struct({
  member_id: Schema.String,
  auction_id: Schema.String,
  hold_id: Schema.String,
  points: Schema.Number,
  name: Schema.String
})
export type AuctionSettle = typeof AuctionSettle.Type

export const BidHeld = Schema.Struct({
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
  bid_id: Schema.String,
  /** Now: leading (or won), outbid, or refused (with why). */
  status: Schema.Literals(["leading", "outbid", "won", "refused"]),
  refusal: Schema.NullOr(Schema.Literals(["AUCTION_CLOSED", "BID_TOO_LOW"])),
  /** For a refused bid: the auction's high bid and next minimum when it was refused. */
  refused_at: Schema.NullOr(Schema.Struct({ current_high_bid: Schema.NullOr(Schema.Number), min_next_bid: Schema.Number })),
  ...AuctionView
})

export const AuctionClosed = Schema.Struct({ closed_now: Schema.Boolean, ...AuctionView })

export const AuctionSettled = Schema.Struct({
  redemption_id: Schema.NullOr(Schema.String),
  points_deducted: Schema.Number,
  idempotent_replay: Schema.Boolean
})

export type BidHeld = typeof BidHeld.Type
export type BidDecided = typeof BidDecided.Type
export type AuctionClosed = typeof AuctionClosed.Type
export type AuctionSettled = typeof AuctionSettled.Type

const message = ActorProtocol.message

export const AuctionMessages = {
  bidHold: message({
    payload: BidHold,
    success: BidHeld,
    error: refusedWith(["MEMBER_NOT_FOUND", "MEMBER_INACTIVE", "IDEMPOTENCY_CONFLICT", "EXPERIENCE_NOT_FOUND", "INSUFFICIENT_POINTS"])
  }),
  /** A bid too low or too late is decided (refused, in the answer), not refused as a command. */
  auctionBid: message({ payload: AuctionBid, success: BidDecided, error: refusedWith(["EXPERIENCE_NOT_FOUND"]) }),
  auctionClose: message({ payload: AuctionClose, success: AuctionClosed, error: refusedWith(["EXPERIENCE_NOT_FOUND"]) }),
  /** A winner who cannot pay is logged and answered (no redemption), not refused. */
  auctionSettle: message({ payload: AuctionSettle, success: AuctionSettled, error: refusedWith(["MEMBER_NOT_FOUND"]) })
}
