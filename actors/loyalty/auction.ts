import { Clock, Effect } from "effect"
import { randomUUID } from "node:crypto"
import { closeDue, decideBid, minNextBid } from "../../core/loyalty/auction.ts"
import * as Actor from "../runtime/Actor.ts"
import type { AuctionBid, AuctionClose, AuctionClosed, BidDecided } from "./auctionProtocol.ts"
import { LoyaltyProtocol } from "./protocol.ts"
import { refuse } from "./refusals.ts"

// The auction actor: the loyalty actor keyed by the experience id. It decides bids one at a time (each once per hold:
// the bidder's outbox and the ingress both bring it) and closes the auction; the holds live in the bidders' actors,
// which it tells (outbox) to release a refused or outbid bid's hold and to confirm the winner's. Whether the auction is
// due to close is decided on the worker's clock (Effect's Clock, so a TestClock can drive it); a bid counts by when
// its hold was placed (placed_at).

interface AuctionRow {
  readonly auction_id: string
  readonly name: string
  readonly status: "open" | "closed"
  readonly starting_bid: number
  readonly min_increment: number
  readonly current_high_bid: number | null
  readonly leading_bid_id: string | null
  readonly ends_at: string
}

/**
 * The auction row, locked FOR NO KEY UPDATE: compatible with the KEY SHARE lock a bidder's transaction takes when its
 * new hold references the auction, so a bidder (holding its member row) and the auction (about to reference that
 * member from a bid row) never wait on each other in a cycle.
 */
const load = (auctionId: string) =>
  Actor.query(async (tx) => {
    const [a] = await tx`SELECT auction_id, name, status, starting_bid::float8 AS starting_bid, min_increment::float8 AS min_increment,
        current_high_bid::float8 AS current_high_bid, leading_bid_id, ends_at FROM loyalty_auctions WHERE auction_id = ${auctionId} FOR NO KEY UPDATE`
    return a === undefined ? undefined : ({ ...a, ends_at: (a.ends_at as Date).toISOString() } as unknown as AuctionRow)
  })

const view = (a: AuctionRow) => ({
  auction_id: a.auction_id, auction_status: a.status, current_high_bid: a.current_high_bid, min_next_bid: minNextBid(a), ends_at: a.ends_at
})

const release = (memberId: string, holdId: string) =>
  Effect.flatMap(Actor.tell(LoyaltyProtocol, "endHold", { member_id: memberId, hold_ids: [holdId], move: "release" }, randomUUID()), (m) => Actor.emit([m]))

/** Closes the auction when its end and the grace have passed: the leading bid wins and its bidder is told to pay. */
const closeIfDue = Effect.fn("AuctionActor.closeIfDue")(function*(a: AuctionRow, now: number) {
  if (!closeDue(a, now)) return { auction: a, closedNow: false }
  yield* Actor.query((tx) => tx`UPDATE loyalty_auctions SET status = 'closed', closed_at = now() WHERE auction_id = ${a.auction_id} AND status = 'open'`)
  if (a.leading_bid_id !== null) {
    const [winner] = yield* Actor.query((tx) => tx`UPDATE loyalty_bids SET status = 'won' WHERE bid_id = ${a.leading_bid_id} AND status = 'leading'
      RETURNING member_id, hold_id, points::float8 AS points`)
    const settle = { member_id: winner!.member_id as string, auction_id: a.auction_id, hold_id: winner!.hold_id as string, points: winner!.points as number, name: a.name }
    yield* Actor.emit([yield* Actor.tell(LoyaltyProtocol, "auctionSettle", settle, randomUUID())])
  }
  return { auction: { ...a, status: "closed" as const }, closedNow: true }
})

/**
 * Decides a bid once per hold: a repeat answers the bid's status now. Refused (its hold released) when the auction is
 * closed or the bid was placed at or after ends_at (AUCTION_CLOSED), or below the next minimum (BID_TOO_LOW);
 * otherwise it leads, and the previous leader's hold is released.
 */
export const auctionBid = Effect.fn("AuctionActor.bid")(function*(cmd: AuctionBid) {
  const { scope } = yield* Effect.service(Actor.GroupTransaction)
  const now = yield* Clock.currentTimeMillis
  const loaded = yield* load(cmd.member_id)
  if (loaded === undefined) {
    yield* release(cmd.bidder_member_id, cmd.hold_id)
    return yield* refuse("EXPERIENCE_NOT_FOUND", "No such experience", { experience_id: ["not found"] })
  }
  const { auction: a } = yield* closeIfDue(loaded, now)
  const [prior] = yield* Actor.query((tx) => tx`SELECT bid_id, status, refusal, high_at_refusal::float8 AS high, min_at_refusal::float8 AS min FROM loyalty_bids WHERE hold_id = ${cmd.hold_id}`)
  if (prior !== undefined) {
    return {
      bid_id: prior.bid_id as string, status: prior.status as "leading" | "outbid" | "won" | "refused", refusal: (prior.refusal ?? null) as "AUCTION_CLOSED" | "BID_TOO_LOW" | null,
      refused_at: prior.refusal === null ? null : { current_high_bid: prior.high as number | null, min_next_bid: prior.min as number }, ...view(a)
    } satisfies BidDecided
  }
  const bidId = randomUUID()
  const minNext = minNextBid(a)
  const decision = decideBid(a, cmd)
  if (!decision.accepted) {
    const refusal = decision.refusal
    yield* Actor.query((tx) => tx`INSERT INTO loyalty_bids (bid_id, auction_id, tenant_id, member_id, hold_id, points, status, refusal, high_at_refusal, min_at_refusal, placed_at, decided_at)
      VALUES (${bidId}, ${a.auction_id}, ${scope.tenant_id}, ${cmd.bidder_member_id}, ${cmd.hold_id}, ${cmd.points}, 'refused', ${refusal}, ${a.current_high_bid}, ${minNext},
        ${cmd.placed_at}, now())`)
    yield* release(cmd.bidder_member_id, cmd.hold_id)
    return { bid_id: bidId, status: "refused", refusal, refused_at: { current_high_bid: a.current_high_bid, min_next_bid: minNext }, ...view(a) } satisfies BidDecided
  }
  if (a.leading_bid_id !== null) {
    const [previous] = yield* Actor.query((tx) => tx`UPDATE loyalty_bids SET status = 'outbid' WHERE bid_id = ${a.leading_bid_id} AND status = 'leading' RETURNING member_id, hold_id`)
    if (previous !== undefined) yield* release(previous.member_id as string, previous.hold_id as string)
  }
  yield* Actor.query(async (tx) => {
    await tx`INSERT INTO loyalty_bids (bid_id, auction_id, tenant_id, member_id, hold_id, points, status, placed_at, decided_at)
      VALUES (${bidId}, ${a.auction_id}, ${scope.tenant_id}, ${cmd.bidder_member_id}, ${cmd.hold_id}, ${cmd.points}, 'leading', ${cmd.placed_at}, now())`
    await tx`UPDATE loyalty_auctions SET current_high_bid = ${cmd.points}, leading_bid_id = ${bidId}, bid_count = bid_count + 1 WHERE auction_id = ${a.auction_id}`
  })
  return { bid_id: bidId, status: "leading", refusal: null, refused_at: null, ...view({ ...a, current_high_bid: cmd.points, leading_bid_id: bidId }) } satisfies BidDecided
})

/** Closes the auction if it is due (a read after the end, or the sweep); answers its state either way. */
export const auctionClose = Effect.fn("AuctionActor.close")(function*(cmd: AuctionClose) {
  const loaded = yield* load(cmd.member_id)
  if (loaded === undefined) return yield* refuse("EXPERIENCE_NOT_FOUND", "No such experience", { experience_id: ["not found"] })
  const { auction, closedNow } = yield* closeIfDue(loaded, yield* Clock.currentTimeMillis)
  return { closed_now: closedNow, ...view(auction) } satisfies AuctionClosed
})
