import { Effect } from "effect"
import { randomUUID } from "node:crypto"
import * as Actor from "../runtime/Actor.ts"
import { knownMemberOrRefuse } from "./refusals.ts"
import { expiryOf } from "./earning.ts"
import type { Enroll, Enrolled, Unsubscribe, Unsubscribed } from "./memberProtocol.ts"
import * as Repo from "./repository.ts"
import { chain, earn as earnLot, emptyWallet, setBalance, type Wallet } from "./state.ts"
import { endHold, settle } from "./holds.ts"
import * as Events from "./events.ts"
import { commandTime } from "./clock.ts"

// Joining and leaving the programme.

export const enroll = Effect.fn("LoyaltyActor.enroll")(function*(cmd: Enroll) {
  const { scope } = yield* Effect.service(Actor.GroupTransaction)
  const now = yield* commandTime
  const program = yield* Actor.query((tx) => Repo.findProgram(tx, scope))
  const expiresAt = expiryOf(program?.expiry_months, now)
  const existing = yield* Actor.query((tx) => Repo.loadMemberForUpdate(tx, cmd.member_id))
  const profile = { first_name: cmd.first_name ?? null, last_name: cmd.last_name ?? null, phone: cmd.phone ?? null }
  const before = existing?.wallet ?? emptyWallet
  const ids = { lot_id: randomUUID(), entry_id: randomUUID() }
  // A re-enrolment without loyalty_balance keeps the member's points; with it, one adjustment sets the balance.
  const { wallet, entries } = chain(before, [
    (w) => settle(w, now, randomUUID),
    (w) => existing === undefined
      ? (cmd.loyalty_balance ?? 0) > 0
        ? earnLot(w, { ...ids, points: cmd.loyalty_balance!, status: "confirmed", kind: "opening_balance", expires_at: expiresAt, lifetime: false }, now)
        : { wallet: w, entries: [] }
      : cmd.loyalty_balance === undefined ? { wallet: w, entries: [] } : setBalance(w, cmd.loyalty_balance, ids, expiresAt, now)
  ])
  yield* Actor.query(async (tx) => {
    if (existing === undefined) await Repo.insertMember(tx, scope, { member_id: cmd.member_id, email: cmd.email, ...profile })
    else await Repo.refreshMember(tx, cmd.member_id, profile)
    await Repo.saveTransition(tx, scope, cmd.member_id, before, wallet, entries, { reason: existing === undefined ? "enrolment" : "re-enrolment" })
  })
  const isNew = existing === undefined
  const reactivated = existing?.status === "unsubscribed"
  if (isNew || reactivated) yield* Events.memberEnrolled({ member_id: cmd.member_id, email: cmd.email, ...profile }, isNew, reactivated, Repo.balancesOf(wallet))
  return { member_id: cmd.member_id, is_new: isNew, reactivated, balances: Repo.balancesOf(wallet) } satisfies Enrolled
})

/** Leaves the programme: points are kept; active credit holds are released (nothing can confirm them any more). */
export const unsubscribe = Effect.fn("LoyaltyActor.unsubscribe")(function*(cmd: Unsubscribe) {
  const { scope } = yield* Effect.service(Actor.GroupTransaction)
  const now = yield* commandTime
  const member = yield* knownMemberOrRefuse(cmd.member_id)
  const t = chain(member.wallet, [
    (w) => settle(w, now, randomUUID),
    ...member.wallet.holds.map((h) => (w: Wallet) => endHold(w, h.hold_id, "release", randomUUID(), now) ?? { wallet: w, entries: [] })
  ])
  yield* Actor.query(async (tx) => {
    if (member.status === "active") await Repo.setStatus(tx, cmd.member_id, "unsubscribed")
    if (t.entries.length > 0) await Repo.saveTransition(tx, scope, cmd.member_id, member.wallet, t.wallet, t.entries, { reason: "unsubscribed" })
  })
  return {
    member_id: cmd.member_id, was_unsubscribed: member.status === "unsubscribed", balances: Repo.balancesOf(t.wallet)
  } satisfies Unsubscribed
})
