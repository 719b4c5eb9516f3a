// Experience-auction rules, pure: shared by the auction actor, the bidder's actor, the ingress's reads and the
// property test that drives them with bids delivered in any order.

/** A bid placed before ends_at still counts while the auction is open; the auction closes this long after ends_at. */
export const CLOSE_GRACE_MS = 2_000

export interface AuctionTerms {
  readonly starting_bid: number
  readonly min_increment: number
  readonly current_high_bid: number | null
}

/** The smallest bid the auction accepts next: the starting bid, then the high bid plus the increment. */
export const minNextBid = (a: AuctionTerms) => (a.current_high_bid === null ? a.starting_bid : a.current_high_bid + a.min_increment)

/** Whether the auction closes now: open, and its end plus the grace passed. */
export const closeDue = (a: { readonly status: "open" | "closed"; readonly ends_at: string }, now: number) =>
  a.status === "open" && now >= Date.parse(a.ends_at) + CLOSE_GRACE_MS

export type BidDecision =
  | { readonly accepted: false; readonly refusal: "AUCTION_CLOSED" | "BID_TOO_LOW"; readonly min_next_bid: number }
  | { readonly accepted: true }

/** A bid's fate: refused when the auction is closed or the bid was placed at or after ends_at, or below the next minimum. */
export const decideBid = (a: AuctionTerms & { readonly status: "open" | "closed"; readonly ends_at: string }, bid: { readonly points: number; readonly placed_at: string }): BidDecision => {
  const min = minNextBid(a)
  if (a.status === "closed" || bid.placed_at >= a.ends_at) return { accepted: false, refusal: "AUCTION_CLOSED", min_next_bid: min }
  if (bid.points < min) return { accepted: false, refusal: "BID_TOO_LOW", min_next_bid: min }
  return { accepted: true }
}

/**
 * The member's earlier bid holds a new bid replaces (released in the bidder's transaction): those it raises by at least
 * the increment, and only before ends_at. Such a raise cannot be refused as too low while the earlier bid leads (the
 * next minimum is then that bid + the increment), so a leader is never left without a hold.
 */
export const replacedHolds = <H extends { readonly points: number }>(
  holds: ReadonlyArray<H>, bid: { readonly points: number; readonly placed_at: string }, terms: { readonly min_increment: number; readonly ends_at: string }
): ReadonlyArray<H> => (bid.placed_at < terms.ends_at ? holds.filter((h) => bid.points >= h.points + terms.min_increment) : [])
