import { Effect } from "effect"
import { randomUUID } from "node:crypto"
import type { TenantScope } from "../../core/TenantScope.ts"
import * as Actor from "../runtime/Actor.ts"
import { expiryOf, fingerprint, stayPoints } from "./earning.ts"
import { type Earn, type Earned, LoyaltyProtocol, type Redeem, type Redeemed, type StayEvent } from "./protocol.ts"
import * as Repo from "./repository.ts"
import { applyDiscount } from "./discount.ts"
import { creditReverse, endHolds, placeHold } from "./credit.ts"
import { reverseEarnings } from "./reverse.ts"
import { stayEvent } from "./stays.ts"
import { changeMembership, contribute, createHousehold, credit } from "./households.ts"
import { auctionBid, auctionClose } from "./auction.ts"
import { bidHold, settleAuction } from "./bids.ts"
import { enroll, unsubscribe } from "./membership.ts"
import { resolveEarn } from "./resolveEarn.ts"
import { memberOrRefuse, refuse } from "./refusals.ts"
import { LegacyOps } from "./legacyApply.ts"
import { opUnionHandler } from "../runtime/opUnion.ts"
import { claim, refuseClaimed } from "./actionClaims.ts"
import { chain, earn as earnLot, spend } from "./state.ts"
import { settle } from "./holds.ts"
import * as Events from "./events.ts"
import { tierNow } from "./events.ts"
import { commandTime } from "./clock.ts"

/** A key already used: the same request answers its first result again; another member or other fields → 409. */
const priorUse = Effect.fn("LoyaltyActor.priorUse")(function*(scope: TenantScope, op: string, key: string, memberId: string, print: string) {
  const prior = yield* Actor.query((tx) => Repo.findByKey(tx, scope, op, key))
  if (prior === undefined) return undefined
  if (prior.member_id !== memberId || prior.fingerprint !== print) {
    return yield* refuse("IDEMPOTENCY_CONFLICT", "external_reference_id was already used for a different request", {
      external_reference_id: [prior.member_id !== memberId ? "already used for another member" : "already used with different points or reward"]
    })
  }
  return prior
})

const earn = Effect.fn("LoyaltyActor.earn")(function*(cmd: Earn) {
  const { scope } = yield* Effect.service(Actor.GroupTransaction)
  const now = yield* commandTime
  const member = yield* memberOrRefuse(cmd.member_id)
  const expired = settle(member.wallet, now, randomUUID)
  const print = fingerprint({
    member_id: cmd.member_id, points: cmd.points, stay: cmd.stay, ...(cmd.action_type !== undefined ? { action_type: cmd.action_type } : {}),
    ...(cmd.action_scope ? { action_scope: cmd.action_scope } : {})
  })
  const op = cmd.action_type !== undefined ? "action" : "earn"
  const prior = yield* priorUse(scope, op, cmd.external_reference_id, cmd.member_id, print)
  if (prior !== undefined) {
    return {
      transaction_id: prior.entry_id, status: prior.status === "pending" ? "pending" : "confirmed", points_awarded: 0,
      expires_at: prior.expires_at, idempotent_replay: true, balances: Repo.balancesOf(expired.wallet)
    } satisfies Earned
  }
  if (cmd.action_type !== undefined && cmd.action_scope !== undefined) yield* refuseClaimed(cmd.member_id, cmd.action_type, cmd.action_scope)
  const program = yield* Actor.query((tx) => Repo.findProgram(tx, scope))
  let points = cmd.points ?? 0
  if (cmd.stay !== undefined) {
    const stay = cmd.stay
    if (program === undefined) return yield* refuse("PROGRAM_NOT_CONFIGURED", "No loyalty programme is set up: PUT /api/v1/loyalty/program first", { amount: ["no programme rate to convert it"] })
    if (stay.currency !== program.currency) {
      return yield* refuse("CURRENCY_MISMATCH", `The programme earns on ${program.currency} amounts`, { currency: [`must be ${program.currency}`] })
    }
    const multiplier = yield* Actor.query((tx) => Repo.tierMultiplier(tx, scope, cmd.member_id))
    points = stayPoints(program, multiplier, stay)
  }
  if (points <= 0) return yield* refuse("PROGRAM_NOT_CONFIGURED", "The stay earns no points under the programme's rates", { amount: ["earns 0 points"] })
  const expiresAt = expiryOf(program?.expiry_months, now)
  const entryId = randomUUID()
  // A pending earn confirms by itself after the programme's pending_days (when it has some).
  const availableAt = cmd.status === "pending" && (program?.pending_days ?? 0) > 0
    ? new Date(Date.parse(now) + program!.pending_days * 86_400_000).toISOString()
    : null
  const t = chain(expired.wallet, [(w) => earnLot(w, {
    lot_id: randomUUID(), entry_id: entryId, points, status: cmd.status, kind: "earn", expires_at: expiresAt, available_at: availableAt, lifetime: true
  }, now)])
  const tierBefore = yield* tierNow(cmd.member_id)
  yield* Actor.query(async (tx) => {
    await Repo.saveTransition(tx, scope, cmd.member_id, member.wallet, t.wallet, [...expired.entries, ...t.entries], {
      op, external_reference_id: cmd.external_reference_id, fingerprint: print, reservation_id: cmd.stay?.reservation_id ?? null,
      reason: cmd.reason ?? (cmd.action_type !== undefined ? `action: ${cmd.action_type}` : null),
      ...(cmd.stay !== undefined ? { qualifying: { points, nights: cmd.stay.nights } } : {})
    })
    if (cmd.action_type !== undefined && cmd.action_scope !== undefined) await claim(tx, scope, cmd.member_id, cmd.action_type, cmd.action_scope, entryId)
    // Stay points and nights qualify for tiers once confirmed; explicit points (bonuses) do not.
    if (cmd.stay !== undefined && cmd.status === "confirmed") await Repo.addQualifying(tx, cmd.member_id, points, cmd.stay.nights)
  })
  yield* Events.pointsEarned({
    member_id: cmd.member_id, transaction_id: entryId, status: cmd.status, points, reason: cmd.reason ?? null, reservation_id: cmd.stay?.reservation_id ?? null,
    action_type: cmd.action_type ?? null, expires_at: expiresAt, balances: Repo.balancesOf(t.wallet)
  })
  yield* Events.tierChangedSince(cmd.member_id, tierBefore)
  return {
    transaction_id: entryId, status: cmd.status, points_awarded: points, expires_at: expiresAt, idempotent_replay: false,
    balances: Repo.balancesOf(t.wallet)
  } satisfies Earned
})

const redeem = Effect.fn("LoyaltyActor.redeem")(function*(cmd: Redeem) {
  const { scope } = yield* Effect.service(Actor.GroupTransaction)
  const now = yield* commandTime
  const member = yield* memberOrRefuse(cmd.member_id)
  const expired = settle(member.wallet, now, randomUUID)
  const quantity = cmd.quantity ?? 1
  const print = fingerprint({ member_id: cmd.member_id, points: cmd.points, reward_id: cmd.reward_id, ...(quantity !== 1 ? { quantity } : {}) })
  const prior = yield* priorUse(scope, "redeem", cmd.external_reference_id, cmd.member_id, print)
  if (prior !== undefined) {
    return {
      redemption_id: prior.redemption_id!, transaction_id: prior.entry_id, status: prior.redemption_status ?? "fulfilled",
      reward_id: prior.reward_id, points_deducted: 0, idempotent_replay: true, balances: Repo.balancesOf(expired.wallet)
    } satisfies Redeemed
  }
  let points = cmd.points ?? 0
  let autoFulfill = true
  let rewardInfo: { reward_id: string; name: string; type: string } | null = null
  if (cmd.reward_id !== undefined) {
    const reward = yield* Actor.query((tx) => Repo.findReward(tx, scope, cmd.reward_id!))
    if (reward === undefined) return yield* refuse("REWARD_NOT_FOUND", `No reward with reward_id ${JSON.stringify(cmd.reward_id)}`, { reward_id: ["not found"] })
    if (!reward.active || (reward.stock_remaining !== null && reward.stock_remaining < quantity)) return yield* refuse("REWARD_UNAVAILABLE", "The reward is out of stock", { reward_id: ["out of stock"] })
    points = reward.points_cost * quantity
    autoFulfill = reward.auto_fulfill
    rewardInfo = { reward_id: reward.reward_id, name: reward.name, type: reward.type }
  }
  const entryId = randomUUID()
  const spent = spend(expired.wallet, { entry_id: entryId, points, kind: "redeem" }, now)
  if (!spent.ok) {
    return yield* refuse("INSUFFICIENT_POINTS", `The member has ${spent.available} points available, ${spent.requested} needed`, {
      [cmd.reward_id !== undefined ? "reward_id" : "points"]: ["more than the member's available points"], requested: spent.requested, available: spent.available
    })
  }
  // Stock is shared by every member: taken first, by a conditional UPDATE, so a refusal here has written nothing.
  if (cmd.reward_id !== undefined && !(yield* Actor.query((tx) => Repo.takeStock(tx, cmd.reward_id!, quantity)))) {
    return yield* refuse("REWARD_UNAVAILABLE", "The reward is out of stock", { reward_id: ["out of stock"] })
  }
  const status = cmd.status ?? (autoFulfill ? "fulfilled" : "pending")
  const redemptionId = randomUUID()
  yield* Actor.query(async (tx) => {
    await Repo.saveTransition(tx, scope, cmd.member_id, member.wallet, spent.transition.wallet, [...expired.entries, ...spent.transition.entries], {
      op: "redeem", external_reference_id: cmd.external_reference_id, fingerprint: print, reward_id: cmd.reward_id ?? null, reason: cmd.notes
    })
    await Repo.insertRedemption(tx, scope, {
      redemption_id: redemptionId, entry_id: entryId, member_id: cmd.member_id, reward_id: cmd.reward_id ?? null, points, status, notes: cmd.notes, created_at: now
    })
  })
  // A pending redemption needs the team (the spec: fulfilled skips the fulfilment alert).
  if (status === "pending") {
    yield* Events.fulfilmentRequired({ member_id: cmd.member_id, redemption_id: redemptionId, transaction_id: entryId, reward: rewardInfo, quantity, points, notes: cmd.notes })
  }
  return {
    redemption_id: redemptionId, transaction_id: entryId, status, reward_id: cmd.reward_id ?? null, points_deducted: points,
    idempotent_replay: false, balances: Repo.balancesOf(spent.transition.wallet)
  } satisfies Redeemed
})

const handlers = {
  enroll,
  earn,
  redeem,
  unsubscribe,
  resolveEarn,
  applyDiscount,
  placeHold,
  endHold: endHolds,
  creditReverse,
  reverseEarn: reverseEarnings,
  stayEvent: (cmd: StayEvent) => stayEvent(cmd, earn),
  householdCreate: createHousehold,
  householdMembership: changeMembership,
  householdContribute: contribute,
  householdCredit: credit,
  bidHold,
  auctionBid,
  auctionClose,
  auctionSettle: settleAuction
}

export const LoyaltyActor = Actor.make(LoyaltyProtocol, {
  ...handlers,
  /** Deprecated (legacyApply.ts): remove in the release after this one. */
  apply: opUnionHandler<typeof LoyaltyProtocol.messages.apply>(LegacyOps, handlers)
})
