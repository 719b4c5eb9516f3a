import { Effect } from "effect"
import { randomUUID } from "node:crypto"
import { replacedHolds } from "../../core/loyalty/auction.ts"
import * as Actor from "../runtime/Actor.ts"
import type { AuctionSettle, AuctionSettled, BidHeld, BidHold } from "./auctionProtocol.ts"
import { fingerprint } from "./earning.ts"
import * as Events from "./events.ts"
import * as Holds from "./holdRepository.ts"
import { endHold, placeHold, settle } from "./holds.ts"
import { LoyaltyProtocol } from "./protocol.ts"
import { knownMemberOrRefuse, memberOrRefuse, refuse } from "./refusals.ts"
import * as Repo from "./repository.ts"
import { spend, type Transition, type Wallet } from "./state.ts"
import { commandTime } from "./clock.ts"

// The bidder's side of an experience auction: a bid is a hold on the member's lots (kind 'bid'), which the auction
// actor then accepts or refuses; the winner's hold is confirmed into a redemption when the auction closes.

/** A bid hold outlives the auction's end by a day: time for the close (lazy, or the sweep) to confirm the winner's. */
export const BID_HOLD_MARGIN_MS = 86_400_000

const then = (t: Transition, step: (w: Wallet) => Transition | undefined): Transition => {
  const next = step(t.wallet)
  return next === undefined ? t : { wallet: next.wallet, entries: [...t.entries, ...next.entries] }
}

const findAuction = (auctionId: string) =>
  Actor.query(async (tx) => (await tx`SELECT auction_id, name, ends_at, min_increment::float8 AS min_increment FROM loyalty_auctions
    WHERE auction_id = ${auctionId}`)[0] as { auction_id: string; name: string; ends_at: Date; min_increment: number } | undefined)

/** The member's active bid holds on an auction (normally at most one). */
const activeBidHolds = (memberId: string, auctionId: string) =>
  Actor.query(async (tx) => (await tx`SELECT hold_id, points::float8 AS points FROM loyalty_holds
    WHERE member_id = ${memberId} AND auction_id = ${auctionId} AND kind = 'bid' AND status = 'active'`) as unknown as Array<{ hold_id: string; points: number }>)

/**
 * Places a bid hold and tells the auction (outbox: the bid reaches the auction even if the caller is gone, so a hold is
 * never left behind). A raise (at least the member's earlier bid plus the increment, before the end) replaces the
 * member's earlier bid hold in this transaction: the raise needs only the difference in free points. Such a raise
 * cannot be refused as too low while the earlier bid leads, so the leader is never left without its hold.
 */
export const bidHold = Effect.fn("LoyaltyActor.bidHold")(function*(cmd: BidHold) {
  const { scope } = yield* Effect.service(Actor.GroupTransaction)
  const now = yield* commandTime
  const member = yield* memberOrRefuse(cmd.member_id)
  const settled = settle(member.wallet, now, randomUUID)
  const print = fingerprint({ member_id: cmd.member_id, auction_id: cmd.auction_id, points: cmd.points })
  const prior = yield* Actor.query((tx) => Holds.findHoldByKey(tx, scope, cmd.external_reference_id, "bid"))
  if (prior !== undefined) {
    if (prior.member_id !== cmd.member_id || prior.fingerprint !== print) {
      return yield* refuse("IDEMPOTENCY_CONFLICT", "external_reference_id was already used for a different bid", {
        external_reference_id: [prior.member_id !== cmd.member_id ? "already used for another member" : "already used with other points or another experience"]
      })
    }
    return {
      hold_id: prior.hold_id, points_held: prior.points, placed_at: prior.created_at, replaced_hold_id: null, idempotent_replay: true,
      balances: Repo.balancesOf(settled.wallet)
    } satisfies BidHeld
  }
  const auction = yield* findAuction(cmd.auction_id)
  if (auction === undefined) return yield* refuse("EXPERIENCE_NOT_FOUND", "No such experience", { experience_id: ["not found"] })
  const endsAt = auction.ends_at.toISOString()
  const live = (yield* activeBidHolds(cmd.member_id, cmd.auction_id)).filter((h) => settled.wallet.holds.some((x) => x.hold_id === h.hold_id && x.status === "active"))
  const replaced = replacedHolds(live, { points: cmd.points, placed_at: now }, { min_increment: auction.min_increment, ends_at: endsAt })
  let t: Transition = settled
  for (const h of replaced) t = then(t, (w) => endHold(w, h.hold_id, "release", randomUUID(), now))
  const expiresAt = new Date(Math.max(Date.parse(endsAt), Date.parse(now)) + BID_HOLD_MARGIN_MS).toISOString()
  const held = placeHold(t.wallet, { hold_id: randomUUID(), entry_id: randomUUID(), points: cmd.points, expires_at: expiresAt }, now)
  if (!held.ok) {
    return yield* refuse("INSUFFICIENT_POINTS", `The member has ${held.available} points available for this bid, ${held.requested} needed`, {
      bid_points: ["more than the member's available points"], requested: held.requested, available: held.available
    })
  }
  t = then(t, () => held.transition)
  yield* Actor.query((tx) => Repo.saveTransition(tx, scope, cmd.member_id, member.wallet, t.wallet, t.entries, {
    reason: `bid on experience ${auction.name}`,
    newHold: { reservation_id: null, auction_id: cmd.auction_id, external_reference_id: cmd.external_reference_id, fingerprint: print, amount_minor: 0, currency: null, created_at: now }
  }))
  const bid = { member_id: cmd.auction_id, bidder_member_id: cmd.member_id, hold_id: held.hold.hold_id, points: cmd.points, placed_at: now }
  yield* Actor.emit([yield* Actor.tell(LoyaltyProtocol, "auctionBid", bid, randomUUID())])
  return {
    hold_id: held.hold.hold_id, points_held: cmd.points, placed_at: now, replaced_hold_id: replaced[0]?.hold_id ?? null, idempotent_replay: false,
    balances: Repo.balancesOf(t.wallet)
  } satisfies BidHeld
})

/**
 * The winner pays, once per auction (UNIQUE redemption.auction_id): its winning hold is confirmed into a redemption
 * (pending: the team arranges the experience). When that hold is no longer active (a raise replaced it, and reached
 * the auction only after the close), the member's other bid holds on the auction are released and the winning points
 * spent directly: the raise held more than that, so they are there.
 */
export const settleAuction = Effect.fn("LoyaltyActor.settleAuction")(function*(cmd: AuctionSettle) {
  const { scope } = yield* Effect.service(Actor.GroupTransaction)
  const now = yield* commandTime
  const member = yield* knownMemberOrRefuse(cmd.member_id)
  const [done] = yield* Actor.query((tx) => tx`SELECT redemption_id FROM loyalty_redemptions WHERE auction_id = ${cmd.auction_id}`)
  if (done !== undefined) return { redemption_id: done.redemption_id as string, points_deducted: 0, idempotent_replay: true } satisfies AuctionSettled
  let t = settle(member.wallet, now, randomUUID)
  const entryId = randomUUID()
  if (t.wallet.holds.some((h) => h.hold_id === cmd.hold_id && h.status === "active")) {
    t = then(t, (w) => endHold(w, cmd.hold_id, "confirm", entryId, now))
  } else {
    for (const h of yield* activeBidHolds(cmd.member_id, cmd.auction_id)) t = then(t, (w) => endHold(w, h.hold_id, "release", randomUUID(), now))
    const spent = spend(t.wallet, { entry_id: entryId, points: cmd.points, kind: "redeem" }, now)
    if (!spent.ok) {
      if (t.entries.length > 0) yield* Actor.query((tx) => Repo.saveTransition(tx, scope, cmd.member_id, member.wallet, t.wallet, t.entries, { reason: "auction closed" }))
      yield* Effect.logWarning("auction winner could not pay").pipe(Effect.annotateLogs({ auction_id: cmd.auction_id, member_id: cmd.member_id, requested: spent.requested, available: spent.available }))
      return { redemption_id: null, points_deducted: 0, idempotent_replay: false } satisfies AuctionSettled
    }
    t = then(t, () => spent.transition)
  }
  const redemptionId = randomUUID()
  const notes = `experience auction won: ${cmd.name}`
  yield* Actor.query(async (tx) => {
    await Repo.saveTransition(tx, scope, cmd.member_id, member.wallet, t.wallet, t.entries, { reason: notes })
    await Repo.insertRedemption(tx, scope, {
      redemption_id: redemptionId, entry_id: entryId, member_id: cmd.member_id, reward_id: null, points: cmd.points, status: "pending", notes, created_at: now, auction_id: cmd.auction_id
    })
  })
  yield* Events.fulfilmentRequired({ member_id: cmd.member_id, redemption_id: redemptionId, transaction_id: entryId, reward: null, quantity: 1, points: cmd.points, notes })
  return { redemption_id: redemptionId, points_deducted: cmd.points, idempotent_replay: false } satisfies AuctionSettled
})
