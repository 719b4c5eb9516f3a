import { Effect } from "effect"
import { randomUUID } from "node:crypto"
import * as Actor from "../runtime/Actor.ts"
import * as Events from "./events.ts"
import { tierNow } from "./events.ts"
import { findReversal } from "./holdRepository.ts"
import { settle } from "./holds.ts"
import type { EarnResolved, ResolveEarn } from "./memberProtocol.ts"
import { refuse } from "./refusals.ts"
import * as Repo from "./repository.ts"
import { resolvePending } from "./state.ts"
import { commandTime } from "./clock.ts"

/**
 * Confirms (all of it, or `points` of it with the rest voided) or voids a pending earn, once: the same move again is a
 * replay, the other move (or any move on a reversed earn) is 409 EARN_NOT_PENDING.
 */
export const resolveEarn = Effect.fn("LoyaltyActor.resolveEarn")(function*(cmd: ResolveEarn) {
  const { scope } = yield* Effect.service(Actor.GroupTransaction)
  const now = yield* commandTime
  const member = yield* Actor.query((tx) => Repo.loadMemberForUpdate(tx, cmd.member_id))
  const lot = member === undefined ? undefined : yield* Actor.query((tx) => Repo.findEarnLot(tx, cmd.member_id, cmd.transaction_id))
  if (member === undefined || lot === undefined) {
    return yield* refuse("EARN_NOT_FOUND", `No earn with transaction_id ${JSON.stringify(cmd.transaction_id)}`, { transaction_id: ["not found"] })
  }
  const expired = settle(member.wallet, now, randomUUID)
  // The wallet after settle knows better than the row: a pending lot past its available_at has just been confirmed.
  const current = expired.wallet.lots.find((l) => l.lot_id === lot.lot_id)?.status ?? lot.status
  // A confirmed earn that /reverse took back is reversed: confirming it again is no replay (design note §5).
  const reversed = lot.status !== "voided" && current !== "pending" && (yield* Actor.query((tx) => findReversal(tx, cmd.transaction_id))) !== undefined
  const status = lot.status === "voided" ? "voided" : current === "pending" ? "pending" : reversed ? "reversed" : "confirmed"
  const wanted = cmd.move === "confirm" ? "confirmed" : "voided"
  const answer = (confirmed: number, voided: number, replay: boolean, balances: ReturnType<typeof Repo.balancesOf>) => ({
    transaction_id: cmd.transaction_id, status: wanted, points_confirmed: confirmed, points_voided: voided, idempotent_replay: replay, balances
  }) satisfies EarnResolved
  if (status === wanted) return answer(0, 0, true, Repo.balancesOf(expired.wallet))
  if (status !== "pending") {
    return yield* refuse("EARN_NOT_PENDING", `The earn is already ${status}`, {
      transaction_id: [status === "confirmed" ? "already confirmed: reverse it instead" : `already ${status}`], status
    })
  }
  const pending = expired.wallet.lots.find((l) => l.lot_id === lot.lot_id)!.points_remaining
  const kept = cmd.move === "confirm" ? cmd.points ?? pending : 0
  if (kept > pending) {
    return yield* refuse("POINTS_EXCEED_PENDING", `The earn has ${pending} pending points, ${kept} cannot be confirmed`, {
      points: [`must be at most the ${pending} pending points`], pending
    })
  }
  const t = resolvePending(expired.wallet, lot.lot_id, cmd.move, randomUUID(), now, cmd.move, kept)!
  const tierBefore = yield* tierNow(cmd.member_id)
  yield* Actor.query(async (tx) => {
    // A partial confirm of a stay qualifies in proportion to what was confirmed (before saveTransition adds it).
    if (kept < pending && kept > 0 && lot.qualifying_points > 0) {
      await tx`UPDATE loyalty_lots SET qualifying_points = ${Math.floor(lot.qualifying_points * kept / pending)} WHERE lot_id = ${lot.lot_id}`
    }
    await Repo.saveTransition(tx, scope, cmd.member_id, member.wallet, t.wallet, [...expired.entries, ...t.entries], { reason: `${cmd.move} of ${cmd.transaction_id}` })
  })
  if (cmd.move === "confirm") {
    yield* Events.pointsEarned({
      member_id: cmd.member_id, transaction_id: cmd.transaction_id, status: "confirmed", points: kept, reason: `confirm of ${cmd.transaction_id}`,
      reservation_id: null, action_type: null, expires_at: null, balances: Repo.balancesOf(t.wallet)
    })
    yield* Events.tierChangedSince(cmd.member_id, tierBefore)
  }
  return answer(kept, pending - kept, false, Repo.balancesOf(t.wallet))
})
