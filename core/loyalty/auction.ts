// Experience-auction rules shared by the auction actor and the ingress's reads.

/** A bid placed before ends_at still counts while the auction is open; the auction closes this long after ends_at. */
export const CLOSE_GRACE_MS = 2_000

/** The smallest bid the auction accepts next: the starting bid, then the high bid plus the increment. */
export const minNextBid = (a: { readonly current_high_bid: number | null; readonly starting_bid: number; readonly min_increment: number }) =>
  a.current_high_bid === null ? a.starting_bid : a.current_high_bid + a.min_increment
