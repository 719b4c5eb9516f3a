import { Effect } from "effect"
import { randomUUID } from "node:crypto"
import { pointsToMinor } from "../../core/loyalty/conversion.ts"
import * as Actor from "../runtime/Actor.ts"
import type { CreditReverse, CreditReversed, EndHold, HoldPlaced, HoldsEnded, PlaceHold } from "./creditProtocol.ts"
import { fingerprint } from "./earning.ts"
import * as Holds from "./holdRepository.ts"
import { endHold as endHoldState, placeHold as placeHoldState, refundHold, settle } from "./holds.ts"
import { knownMemberOrRefuse, memberOrRefuse, pointsOfAmount, refuse } from "./refusals.ts"
import * as Repo from "./repository.ts"
import type { Transition, Wallet } from "./state.ts"
import { commandTime } from "./clock.ts"

// Credit holds: points reserved as payment on a reservation, then confirmed (spent), released, expired or reversed.

/** A hold's status at `now`: an active hold past its expiry is expired, whether or not a command recorded it yet. */
const statusAt = (h: Holds.HoldRow, now: string) => (h.status === "active" && h.expires_at <= now ? "expired" : h.status)

const then = (t: Transition, step: (w: Wallet) => Transition | undefined): Transition => {
  const next = step(t.wallet)
  return next === undefined ? t : { wallet: next.wallet, entries: [...t.entries, ...next.entries] }
}

export const placeHold = Effect.fn("LoyaltyActor.placeHold")(function*(cmd: PlaceHold) {
  const { scope } = yield* Effect.service(Actor.GroupTransaction)
  const now = yield* commandTime
  const member = yield* memberOrRefuse(cmd.member_id)
  const settled = settle(member.wallet, now, randomUUID)
  const print = fingerprint({ member_id: cmd.member_id, points: cmd.points, amount_minor: cmd.amount_minor, currency: cmd.currency, reservation_id: cmd.reservation_id })
  const prior = yield* Actor.query((tx) => Holds.findHoldByKey(tx, scope, cmd.external_reference_id))
  if (prior !== undefined) {
    if (prior.member_id !== cmd.member_id || prior.fingerprint !== print) {
      return yield* refuse("IDEMPOTENCY_CONFLICT", "external_reference_id was already used for a different hold", {
        external_reference_id: [prior.member_id !== cmd.member_id ? "already used for another member" : "already used with a different amount or reservation"]
      })
    }
    return {
      idempotent_replay: true, balances: Repo.balancesOf(settled.wallet),
      hold: { hold_id: prior.hold_id, status: statusAt(prior, now), reservation_id: prior.reservation_id, points_held: prior.points, amount_minor: prior.amount_minor, currency: prior.currency!, expires_at: prior.expires_at }
    } satisfies HoldPlaced
  }
  const program = yield* Actor.query((tx) => Repo.findProgram(tx, scope))
  if (program === undefined || program.point_value <= 0) {
    return yield* refuse("PROGRAM_NOT_CONFIGURED", "No programme point_value to value the credit: PUT /api/v1/loyalty/program first", { amount: ["no point_value"] })
  }
  if (cmd.currency !== undefined && cmd.currency !== program.currency) {
    return yield* refuse("CURRENCY_MISMATCH", `The programme's currency is ${program.currency}`, { currency: [`must be ${program.currency}`] })
  }
  const points = cmd.points ?? (yield* pointsOfAmount(cmd.amount_minor!, program.point_value))
  const amountMinor = cmd.amount_minor ?? pointsToMinor(points, program.point_value)
  const expiresAt = new Date(Date.parse(now) + cmd.ttl_seconds * 1000).toISOString()
  const held = placeHoldState(settled.wallet, { hold_id: randomUUID(), entry_id: randomUUID(), points, expires_at: expiresAt }, now)
  if (!held.ok) {
    return yield* refuse("INSUFFICIENT_POINTS", `The member has ${held.available} points available for this hold, ${held.requested} needed`, {
      [cmd.points !== undefined ? "points" : "amount"]: ["more than the member's available points"], requested: held.requested, available: held.available
    })
  }
  const t = then(settled, () => held.transition)
  yield* Actor.query((tx) =>
    Repo.saveTransition(tx, scope, cmd.member_id, member.wallet, t.wallet, t.entries, {
      reservation_id: cmd.reservation_id, reason: `credit hold for reservation ${cmd.reservation_id}`,
      newHold: { reservation_id: cmd.reservation_id, external_reference_id: cmd.external_reference_id, fingerprint: print, amount_minor: amountMinor, currency: program.currency, created_at: now }
    }))
  return {
    idempotent_replay: false, balances: Repo.balancesOf(t.wallet),
    hold: { hold_id: held.hold.hold_id, status: "active", reservation_id: cmd.reservation_id, points_held: points, amount_minor: amountMinor, currency: program.currency, expires_at: expiresAt }
  } satisfies HoldPlaced
})

/**
 * Confirms or releases holds. Confirm: an active hold before its expiry is spent; a confirmed one replays (0 points);
 * an expired one is 409 HOLD_EXPIRED (even when no command has recorded its expiry yet); a released or reversed one is
 * 409 HOLD_NOT_ACTIVE. Release frees an active hold and answers any other hold with its status and 0 points.
 */
export const endHolds = Effect.fn("LoyaltyActor.endHolds")(function*(cmd: EndHold) {
  const { scope } = yield* Effect.service(Actor.GroupTransaction)
  const now = yield* commandTime
  const member = yield* (cmd.move === "release" ? knownMemberOrRefuse(cmd.member_id) : memberOrRefuse(cmd.member_id))
  const rows = yield* Actor.query((tx) => Holds.findHolds(tx, cmd.member_id, [...new Set(cmd.hold_ids)]))
  if (rows.length === 0) return yield* refuse("HOLD_NOT_FOUND", "No such hold", { hold_id: ["not found"] })
  let t = settle(member.wallet, now, randomUUID)
  const holds: Array<{ hold_id: string; status: Holds.HoldRow["status"]; points: number; amount_minor: number; currency: string | null }> = []
  for (const row of rows) {
    const status = statusAt(row, now)
    const view = { hold_id: row.hold_id, amount_minor: row.amount_minor, currency: row.currency }
    if (status === "active") {
      t = then(t, (w) => endHoldState(w, row.hold_id, cmd.move, randomUUID(), now))
      holds.push({ ...view, status: cmd.move === "confirm" ? "confirmed" : "released", points: row.points })
    } else if (cmd.move === "confirm" && status === "expired") {
      return yield* refuse("HOLD_EXPIRED", `The hold expired at ${row.expires_at}: place a new one`, { hold_id: ["expired"], expires_at: row.expires_at })
    } else if (cmd.move === "confirm" && status !== "confirmed") {
      return yield* refuse("HOLD_NOT_ACTIVE", `The hold is ${status}`, { hold_id: [`already ${status}`], status })
    } else holds.push({ ...view, status, points: 0 })
  }
  if (t.entries.length > 0) {
    yield* Actor.query((tx) => Repo.saveTransition(tx, scope, cmd.member_id, member.wallet, t.wallet, t.entries, { reason: `credit ${cmd.move}` }))
  }
  return { holds, balances: Repo.balancesOf(t.wallet) } satisfies HoldsEnded
})

/**
 * Reverses confirmed holds in one transaction: each one's points go back to the lots they came from (a new lot when
 * those expired), one refund row per hold (UNIQUE hold_id), lifetime points unchanged. A reversed hold replays with 0
 * restored; an active, released or expired one refuses the whole command (409 HOLD_NOT_CONFIRMED).
 */
export const creditReverse = Effect.fn("LoyaltyActor.creditReverse")(function*(cmd: CreditReverse) {
  const { scope } = yield* Effect.service(Actor.GroupTransaction)
  const now = yield* commandTime
  const member = yield* knownMemberOrRefuse(cmd.member_id)
  const rows = yield* Actor.query((tx) => Holds.findHolds(tx, cmd.member_id, [...new Set(cmd.hold_ids)]))
  if (rows.length === 0) return yield* refuse("HOLD_NOT_FOUND", "No such hold", { hold_id: ["not found"] })
  const refused = rows.find((r) => r.status !== "confirmed" && r.status !== "reversed")
  if (refused !== undefined) {
    const status = statusAt(refused, now)
    return yield* refuse("HOLD_NOT_CONFIRMED", `The hold is ${status}: ${status === "active" ? "release it instead" : "nothing was spent"}`, { hold_id: [`is ${status}`], status })
  }
  let before = member.wallet
  let t = settle(before, now, randomUUID)
  const refunds: Array<{ hold_id: string; refund_id: string; points_restored: number; idempotent_replay: boolean; entry_id?: string }> = []
  for (const row of rows) {
    if (row.status === "reversed") {
      refunds.push({ hold_id: row.hold_id, refund_id: row.refund_id!, points_restored: 0, idempotent_replay: true })
      continue
    }
    const { draws, lots } = yield* Actor.query((tx) => Holds.confirmDraws(tx, row.hold_id))
    // Lots spent out are not in the loaded wallet: bring them in, as they are, so the points go back to them.
    const missing = lots.filter((l) => !t.wallet.lots.some((x) => x.lot_id === l.lot_id))
    before = { ...before, lots: [...before.lots, ...missing] }
    t = { ...t, wallet: { ...t.wallet, lots: [...t.wallet.lots, ...missing] } }
    const entryId = randomUUID()
    t = then(t, (w) => refundHold(w, { hold_id: row.hold_id, entry_id: entryId, draws, new_lot_id: randomUUID() }, now))
    refunds.push({ hold_id: row.hold_id, refund_id: randomUUID(), points_restored: row.points, idempotent_replay: false, entry_id: entryId })
  }
  yield* Actor.query(async (tx) => {
    if (t.entries.length > 0) await Repo.saveTransition(tx, scope, cmd.member_id, before, t.wallet, t.entries, { reason: cmd.reason ?? "credit reversed" })
    for (const r of refunds.filter((x) => !x.idempotent_replay)) {
      await Holds.insertRefund(tx, scope, { refund_id: r.refund_id, hold_id: r.hold_id, entry_id: r.entry_id!, points: r.points_restored, reason: cmd.reason, now })
      await Holds.markReversed(tx, r.hold_id)
    }
  })
  return {
    refunds: refunds.map(({ entry_id: _e, ...r }) => r), balances: Repo.balancesOf(t.wallet)
  } satisfies CreditReversed
})
