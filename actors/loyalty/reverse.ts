import { Effect } from "effect"
import { randomUUID } from "node:crypto"
import * as Actor from "../runtime/Actor.ts"
import type { EarnReversed, ReverseEarn } from "./creditProtocol.ts"
import * as Holds from "./holdRepository.ts"
import { settle } from "./holds.ts"
import { pointsReversed, tierChangedSince, tierNow } from "./events.ts"
import { knownMemberOrRefuse, refuse } from "./refusals.ts"
import * as Repo from "./repository.ts"
import { reverseEarn as reverseState } from "./reversal.ts"
import type { Transition } from "./state.ts"
import { commandTime } from "./clock.ts"

type Outcome = {
  transaction_id: string
  status: "reversed" | "voided" | "already_reversed" | "already_voided"
  points_reversed: number
  points_voided: number
  points_unrecovered: number
}

/**
 * Reverses earnings of one member (a cancelled stay, a no-show, a correction), each at most once (a unique index on
 * the reversed earn): a pending earn is voided, a confirmed one is taken back from its lot first, then from the
 * others, stopping at zero (the shortfall is reported); lifetime and qualifying totals drop by what it earned.
 */
export const reverseEarnings = Effect.fn("LoyaltyActor.reverseEarnings")(function*(cmd: ReverseEarn) {
  const { scope } = yield* Effect.service(Actor.GroupTransaction)
  const now = yield* commandTime
  const member = yield* knownMemberOrRefuse(cmd.member_id)
  let t: Transition = settle(member.wallet, now, randomUUID)
  const outcomes: Array<Outcome> = []
  const qualifying: Array<{ points: number; nights: number }> = []
  for (const id of new Set(cmd.transaction_ids)) {
    const lot = yield* Actor.query((tx) => Repo.findEarnLot(tx, cmd.member_id, id))
    if (lot === undefined) return yield* refuse("EARN_NOT_FOUND", `No earn with transaction_id ${JSON.stringify(id)}`, { transaction_id: ["not found"] })
    const none = { transaction_id: id, points_reversed: 0, points_voided: 0, points_unrecovered: 0 }
    if ((yield* Actor.query((tx) => Holds.findReversal(tx, id))) !== undefined) {
      outcomes.push({ ...none, status: "already_reversed" })
      continue
    }
    if (lot.status === "voided") {
      outcomes.push({ ...none, status: "already_voided" })
      continue
    }
    // From the wallet after settle: a pending lot past its available_at has just been confirmed.
    const pending = (t.wallet.lots.find((l) => l.lot_id === lot.lot_id)?.status ?? lot.status) === "pending"
    const r = reverseState(t.wallet, { lot_id: lot.lot_id, points: lot.points, pending, lifetime: true, entry_id: randomUUID() }, now)
    const entries = r.transition.entries.map((e) => ({ ...e, reverses_entry_id: id }))
    t = { wallet: r.transition.wallet, entries: [...t.entries, ...entries] }
    if (!pending) qualifying.push({ points: lot.qualifying_points, nights: lot.qualifying_nights })
    outcomes.push({
      transaction_id: id, status: pending ? "voided" : "reversed", points_reversed: r.recovered, points_voided: r.voided, points_unrecovered: r.unrecovered
    })
  }
  const tierBefore = yield* tierNow(cmd.member_id)
  if (t.entries.length > 0) {
    yield* Actor.query(async (tx) => {
      await Repo.saveTransition(tx, scope, cmd.member_id, member.wallet, t.wallet, t.entries, { reason: cmd.reason ?? "earning reversed" })
      for (const q of qualifying) if (q.points > 0 || q.nights > 0) await Holds.subtractQualifying(tx, cmd.member_id, q.points, q.nights)
    })
  }
  for (const o of outcomes) {
    if (o.status === "reversed" || o.status === "voided") {
      yield* pointsReversed({ member_id: cmd.member_id, ...o, status: o.status, reason: cmd.reason, balances: Repo.balancesOf(t.wallet) })
    }
  }
  if (qualifying.length > 0) yield* tierChangedSince(cmd.member_id, tierBefore)
  return { reversed: outcomes, balances: Repo.balancesOf(t.wallet) } satisfies EarnReversed
})
