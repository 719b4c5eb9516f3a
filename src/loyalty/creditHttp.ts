import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { Api, CurrentPrincipal, type Principal } from "../../schemas/api.ts"
import { NotFound, NotImplemented } from "../../schemas/errors.ts"
import { HOLD_TTL_DEFAULT } from "../../schemas/loyaltyCredit.ts"
import { HoldPlaced } from "../../schemas/loyaltyCreditApi.ts"
import { answeredAs, invalid, ok, refusal, spendRefusal } from "./edge.ts"
import { LoyaltyIngress } from "./ingress.ts"
import { findHoldRefs, findReservationEarns } from "./creditReads.ts"
import { findEarnMember, readProgram } from "./reads.ts"
import { decideAction } from "../../core/loyalty/actionRule.ts"
import type { ActionRule } from "../../schemas/loyalty.ts"
import { retryKey } from "./requests.ts"
import { LoyaltyReports } from "./reportsHttp.ts"
import { LoyaltyHouseholds } from "./householdHttp.ts"

const exactlyOne = (fields: Record<string, unknown>) => Object.values(fields).filter((v) => v !== undefined).length === 1
const holdNotFound = () => NotFound.of("No such credit hold", { hold_id: ["not found"] }, "HOLD_NOT_FOUND")
/** Ids grouped by the member they belong to (one actor command per member), in first-seen order. */
const byMember = <R extends { member_id: string }>(rows: ReadonlyArray<R>, id: (r: R) => string) => {
  const groups = new Map<string, Array<string>>()
  for (const r of rows) groups.set(r.member_id, [...(groups.get(r.member_id) ?? []), id(r)])
  return [...groups.entries()]
}

export const LoyaltyCreditLive = HttpApiBuilder.group(Api, "loyaltyCredit", (handlers) =>
  Effect.gen(function*() {
    const { read, resolve, loyalty } = yield* LoyaltyIngress
    const reports = yield* LoyaltyReports
    const households = yield* LoyaltyHouseholds

    /** Ends holds (confirm or release), one actor command per member they belong to. */
    const endHolds = (p: Principal, refs: ReadonlyArray<{ hold_id: string; member_id: string }>, move: "confirm" | "release") =>
      Effect.forEach(byMember(refs, (r) => r.hold_id), ([member_id, hold_ids]) =>
        Effect.map(loyalty(p).endHold({ member_id, hold_ids, move }).pipe(answeredAs(spendRefusal)), (r) => ({ member_id, ...r })))

    return handlers
      .handle("creditQuote", ({ query }) => reports.quote(query))
      .handle("calculate", ({ payload }) => reports.calculate(payload))
      .handle("liability", () => reports.liability())
      .handle("reservationSnapshot", ({ query }) => reports.snapshot(query.reservation_id))
      .handle("household", ({ query }) => households.get(query))
      .handle("households", ({ payload, headers }) => households.post(payload, headers["idempotency-key"]))
      .handle("creditHold", Effect.fn("Loyalty.creditHold")(function*({ payload, headers }) {
        const p = yield* CurrentPrincipal
        const key = retryKey(payload.external_reference_id, headers["idempotency-key"])
        if (!key.ok) return yield* invalid(key.details)
        if ((payload.points !== undefined) === (payload.amount !== undefined)) return yield* invalid({ amount: ["send either amount (with currency) or points"] })
        if (payload.amount !== undefined && payload.currency === undefined) return yield* invalid({ currency: ["is required with amount"] })
        const id = yield* resolve(p, payload)
        const r = yield* loyalty(p).placeHold({
          member_id: id, external_reference_id: key.key, reservation_id: payload.reservation_id, ttl_seconds: payload.ttl_seconds ?? HOLD_TTL_DEFAULT,
          ...(payload.points !== undefined ? { points: payload.points } : { amount_minor: Math.round(payload.amount! * 100), currency: payload.currency!.toUpperCase() })
        }).pipe(answeredAs(refusal))
        const { amount_minor, ...hold } = r.hold
        // points_held is this hold's (the member's total held is points_balance − points_available).
        const data = ok({ member_id: id, ...r.balances, ...hold, amount: amount_minor / 100, idempotent_replay: r.idempotent_replay })
        return r.idempotent_replay ? data : new HoldPlaced(data)
      }))
      .handle("creditConfirm", Effect.fn("Loyalty.creditConfirm")(function*({ payload }) {
        const p = yield* CurrentPrincipal
        if (!exactlyOne({ a: payload.hold_id, b: payload.external_reference_id })) return yield* invalid({ hold_id: ["send either hold_id or external_reference_id"] })
        const refs = yield* read(p, (tx) => findHoldRefs(tx, p, payload))
        if (refs.length === 0) return yield* holdNotFound()
        const [r] = yield* endHolds(p, refs, "confirm")
        const hold = r!.holds[0]!
        return ok({
          member_id: r!.member_id, hold_id: hold.hold_id, status: hold.status, points_deducted: hold.points, amount: hold.amount_minor / 100,
          currency: hold.currency, idempotent_replay: hold.points === 0, ...r!.balances
        })
      }))
      .handle("creditRelease", Effect.fn("Loyalty.creditRelease")(function*({ payload }) {
        const p = yield* CurrentPrincipal
        if (!exactlyOne({ a: payload.hold_id, b: payload.external_reference_id, c: payload.reservation_id })) {
          return yield* invalid({ hold_id: ["send one of hold_id, external_reference_id or reservation_id"] })
        }
        const refs = yield* read(p, (tx) => findHoldRefs(tx, p, payload))
        // The spec: a release with no active hold still answers released: true.
        if (refs.length === 0) return ok({ released: true, hold_id: null, hold_status: "not_found", points_released: 0, holds: [] })
        const answers = yield* endHolds(p, refs, "release")
        const holds = answers.flatMap((a) => a.holds.map((h) => ({ member_id: a.member_id, hold_id: h.hold_id, hold_status: h.status, points_released: h.points })))
        const balances = answers.length === 1 ? { member_id: answers[0]!.member_id, ...answers[0]!.balances } : {}
        return ok({
          released: true, hold_id: holds[0]!.hold_id, hold_status: holds[0]!.hold_status, points_released: holds.reduce((s, h) => s + h.points_released, 0), holds, ...balances
        })
      }))
      .handle("creditReverse", Effect.fn("Loyalty.creditReverse")(function*({ payload }) {
        const p = yield* CurrentPrincipal
        if (!exactlyOne({ a: payload.hold_id, b: payload.reservation_id })) return yield* invalid({ hold_id: ["send either hold_id or reservation_id"] })
        const all = yield* read(p, (tx) => findHoldRefs(tx, p, payload))
        if (all.length === 0) return yield* holdNotFound()
        // By reservation: its confirmed (or already reversed) holds; when it has none, the actor says why (409).
        const spent = all.filter((h) => h.status === "confirmed" || h.status === "reversed")
        const refs = spent.length > 0 ? spent : all
        const answers = yield* Effect.forEach(byMember(refs, (r) => r.hold_id), ([member_id, hold_ids]) =>
          Effect.map(loyalty(p).creditReverse({ member_id, hold_ids, reason: payload.reason ?? null }).pipe(answeredAs(spendRefusal)), (r) => ({ member_id, ...r })))
        const refunds = answers.flatMap((a) => a.refunds.map((r) => ({ member_id: a.member_id, ...r })))
        const balances = answers.length === 1 ? { member_id: answers[0]!.member_id, ...answers[0]!.balances } : {}
        return ok({
          reversed: true, hold_id: refunds[0]!.hold_id, refund_id: refunds[0]!.refund_id, points_restored: refunds.reduce((s, r) => s + r.points_restored, 0),
          idempotent_replay: refunds.every((r) => r.idempotent_replay), refunds, ...balances
        })
      }))
      .handle("reverse", Effect.fn("Loyalty.reverse")(function*({ payload }) {
        const p = yield* CurrentPrincipal
        if (!exactlyOne({ a: payload.transaction_id, b: payload.reservation_id })) return yield* invalid({ transaction_id: ["send either transaction_id or reservation_id"] })
        const earns = payload.transaction_id !== undefined
          ? yield* Effect.map(read(p, (tx) => findEarnMember(tx, p, payload.transaction_id!)), (m) => m === undefined ? [] : [{ entry_id: payload.transaction_id!, member_id: m }])
          : yield* read(p, (tx) => findReservationEarns(tx, p, payload.reservation_id!))
        if (earns.length === 0) {
          return yield* NotFound.of("No earn to reverse", { [payload.transaction_id !== undefined ? "transaction_id" : "reservation_id"]: ["no earn found"] }, "EARN_NOT_FOUND")
        }
        const answers = yield* Effect.forEach(byMember(earns, (e) => e.entry_id), ([member_id, transaction_ids]) =>
          Effect.map(loyalty(p).reverseEarn({ member_id, transaction_ids, reason: payload.reason ?? null }).pipe(answeredAs(spendRefusal)), (r) => ({ member_id, ...r })))
        const reversed = answers.flatMap((a) => a.reversed.map((r) => ({ member_id: a.member_id, ...r })))
        const sum = (k: "points_reversed" | "points_voided" | "points_unrecovered") => reversed.reduce((s, r) => s + r[k], 0)
        const balances = answers.length === 1 ? { member_id: answers[0]!.member_id, ...answers[0]!.balances } : {}
        return ok({
          reversed, points_reversed: sum("points_reversed"), points_voided: sum("points_voided"), points_unrecovered: sum("points_unrecovered"),
          idempotent_replay: reversed.every((r) => r.status.startsWith("already_")), ...balances
        })
      }))
      .handle("actions", Effect.fn("Loyalty.actions")(function*({ payload, headers }) {
        const p = yield* CurrentPrincipal
        const key = retryKey(payload.external_reference_id, headers["idempotency-key"])
        if (!key.ok) return yield* invalid(key.details)
        const program = yield* read(p, (tx) => readProgram(tx, p))
        const action = decideAction((program as { action_rules?: ReadonlyArray<ActionRule> } | undefined)?.action_rules ?? [], payload)
        if (!action.ok) return yield* invalid(action.details)
        const id = yield* resolve(p, payload)
        const { balances, ...r } = yield* loyalty(p).earn({
          member_id: id, external_reference_id: key.key, points: action.points, status: "confirmed", reason: payload.reason ?? null,
          action_type: payload.action_type, ...(action.scope !== undefined ? { action_scope: action.scope } : {})
        }).pipe(answeredAs(spendRefusal))
        return ok({ member_id: id, action_type: payload.action_type, scope_key: payload.scope_key ?? null, per_member: action.limit, ...r, ...balances })
      }))
      .handle("redeemFreeNight", Effect.fn("Loyalty.redeemFreeNight")(function*({ payload, headers }) {
        const p = yield* CurrentPrincipal
        // Decided here, before anything is read or published: no hold, no ledger row.
        if (payload.delivery_method === "engine_api") {
          return yield* NotImplemented.of("Free nights booked through a booking engine's API are not offered: use delivery_method voucher or manual", {
            delivery_method: ["engine_api is not implemented"]
          })
        }
        const key = retryKey(payload.external_reference_id, headers["idempotency-key"])
        if (!key.ok) return yield* invalid(key.details)
        const id = yield* resolve(p, payload)
        const reward = yield* reports.reward(p, payload.reward_id)
        const nights = payload.nights ?? 1
        const { balances, ...r } = yield* loyalty(p).redeem({
          member_id: id, external_reference_id: key.key, reward_id: reward.reward_id, quantity: nights,
          notes: payload.notes ?? `free night${nights > 1 ? "s" : ""}${payload.hotel ? ` at ${payload.hotel}` : ""}${payload.check_in ? ` from ${payload.check_in}` : ""}`,
          ...(payload.status !== undefined ? { status: payload.status } : {})
        }).pipe(answeredAs(spendRefusal))
        const voucher = payload.delivery_method === "voucher" ? `FN-${r.redemption_id.replaceAll("-", "").slice(0, 12).toUpperCase()}` : null
        return ok({ member_id: id, ...r, nights, delivery_method: payload.delivery_method, voucher_code: voucher, ...balances })
      }))
  }))
