import type { Tx } from "../../core/db/Database.ts"
import type { Principal } from "../../schemas/api.ts"
import { minNextBid } from "../../core/loyalty/auction.ts"
import type { ExperienceView } from "../../schemas/loyaltyAnswers.ts"

// Reads of experience auctions, inside the principal's tenant and mode.

const iso = (v: unknown) => (v instanceof Date ? v.toISOString() : (v as string | null))

/** An experience's auction: its terms, state, next minimum bid, winner, and (with `bids`) its last 100 decided bids. */
export const readAuction = async (tx: Tx, p: Principal, auctionId: string, bids = true): Promise<typeof ExperienceView.Type | undefined> => {
  const [a] = await tx`SELECT a.auction_id, a.name, a.description, a.hotel_id, a.starting_bid::float8 AS starting_bid, a.min_increment::float8 AS min_increment,
      a.ends_at, a.status, a.current_high_bid::float8 AS current_high_bid, a.bid_count, a.closed_at, a.created_at,
      b.bid_id AS leading_bid_id, b.member_id AS leading_member_id, r.redemption_id
    FROM loyalty_auctions a LEFT JOIN loyalty_bids b ON b.bid_id = a.leading_bid_id LEFT JOIN loyalty_redemptions r ON r.auction_id = a.auction_id
    WHERE a.auction_id = ${auctionId} AND a.tenant_id = ${p.tenant_id} AND a.sandbox = ${p.sandbox}`
  if (a === undefined) return undefined
  const list = bids
    ? await tx`SELECT bid_id, member_id, points::float8 AS bid_points, status, refusal, placed_at, decided_at FROM loyalty_bids
        WHERE auction_id = ${auctionId} ORDER BY decided_at DESC, bid_id LIMIT 100`
    : []
  const closed = a.status === "closed"
  return {
    experience_id: a.auction_id as string, name: a.name as string, description: a.description as string | null, hotel_id: a.hotel_id as string | null,
    starting_bid: a.starting_bid as number, min_increment: a.min_increment as number, ends_at: iso(a.ends_at)!, status: a.status as "open" | "closed",
    current_high_bid: a.current_high_bid as number | null,
    min_next_bid: closed ? null : minNextBid(a as unknown as { current_high_bid: number | null; starting_bid: number; min_increment: number }),
    bid_count: a.bid_count as number, created_at: iso(a.created_at)!, closed_at: iso(a.closed_at),
    leader: a.leading_bid_id === null ? null : { bid_id: a.leading_bid_id as string, member_id: a.leading_member_id as string, bid_points: a.current_high_bid as number },
    winner: closed && a.leading_bid_id !== null
      ? { bid_id: a.leading_bid_id as string, member_id: a.leading_member_id as string, bid_points: a.current_high_bid as number, redemption_id: a.redemption_id as string | null }
      : null,
    ...(bids ? { bids: list.map((b) => ({ ...b, placed_at: iso(b.placed_at)!, decided_at: iso(b.decided_at) }) as NonNullable<typeof ExperienceView.Type["bids"]>[number]) } : {})
  }
}
