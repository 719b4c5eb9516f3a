import { Effect } from "effect"
import { minorToPoints, pointsToMinor } from "../../core/loyalty/conversion.ts"
import { stayBreakdown, stayPoints } from "../../core/loyalty/stay.ts"
import { CurrentPrincipal, type Principal } from "../../schemas/api.ts"
import { Conflict, NotFound, Unprocessable } from "../../schemas/errors.ts"
import type { CalculateRequest } from "../../schemas/loyaltyCredit.ts"
import { invalid, ok } from "./edge.ts"
import { LoyaltyIngress } from "./ingress.ts"
import { type EarnRow, readLiability, readReservation } from "./creditReads.ts"
import { readMember, readProgram, readReward, readTiers } from "./reads.ts"

// The read-only loyalty endpoints of the second group: credit quote, calculator, liability, reservation snapshot.

type Program = { currency: string; points_per_unit: number; points_per_night: number; expiry_months: number | null; point_value: number }

export const LoyaltyReports = Effect.gen(function*() {
  const { read, resolve } = yield* LoyaltyIngress

  const program = Effect.fn("Loyalty.program")(function*(p: Principal, currency: string | undefined, field: string) {
    const found = (yield* read(p, (tx) => readProgram(tx, p))) as Program | undefined
    if (found === undefined || found.point_value <= 0) {
      return yield* Unprocessable.of("PROGRAM_NOT_CONFIGURED", "No loyalty programme is set up: PUT /api/v1/loyalty/program first", { [field]: ["no programme"] })
    }
    if (currency !== undefined && currency.toUpperCase() !== found.currency) {
      return yield* Unprocessable.of("CURRENCY_MISMATCH", `The programme's currency is ${found.currency}`, { currency: [`must be ${found.currency}`] })
    }
    return found
  })

  /** What the member's available points are worth as credit; with `amount`, the points it would take. */
  const quote = Effect.fn("Loyalty.creditQuote")(function*(q: { member_id?: string; email?: string; amount?: string; currency?: string }) {
    const p = yield* CurrentPrincipal
    const amount = q.amount === undefined ? undefined : Number(q.amount)
    if (amount !== undefined && !(Number.isFinite(amount) && amount > 0 && amount <= 1e10)) return yield* invalid({ amount: ["must be a number above 0, at most 1e10"] })
    const id = yield* resolve(p, q)
    const rates = yield* program(p, q.currency, "amount")
    const member = (yield* read(p, (tx) => readMember(tx, p, id)))!
    const asked = amount === undefined ? {} : (() => {
      const points = minorToPoints(Math.round(amount * 100), rates.point_value)
      return { amount, points_for_amount: points, covered: points <= member.points_available }
    })()
    return ok({
      member_id: id, points_available: member.points_available, amount_available: pointsToMinor(member.points_available, rates.point_value) / 100,
      currency: rates.currency, rate: { point_value: rates.point_value }, rounding: "points to money floored, money to points ceiled", ...asked
    })
  })

  const calculate = Effect.fn("Loyalty.calculate")(function*(r: CalculateRequest) {
    const p = yield* CurrentPrincipal
    const rates = yield* program(p, r.currency, "amount")
    let multiplier = 1
    let tier: string | null = null
    if (r.member_id !== undefined || r.email !== undefined) {
      const id = yield* resolve(p, r)
      const [member, tiers] = yield* read(p, async (tx) => [await readMember(tx, p, id), await readTiers(tx, p)] as const)
      tier = member?.tier?.slug ?? null
      multiplier = (tiers.find((t) => t.tier_slug === tier)?.earn_multiplier as number | undefined) ?? 1
    }
    const stay = { amount: r.amount, nights: r.nights ?? 0 }
    const points = stayPoints(rates, multiplier, stay)
    return ok({
      points, qualifying_points: points, qualifying_nights: stay.nights, eligible: points > 0, tier_slug: tier, tier_multiplier: multiplier,
      breakdown: stayBreakdown(rates, multiplier, stay), currency: rates.currency
    })
  })

  const liability = Effect.fn("Loyalty.liability")(function*() {
    const p = yield* CurrentPrincipal
    const [l, rates] = yield* read(p, async (tx) => [await readLiability(tx, p), (await readProgram(tx, p)) as Program | undefined] as const)
    const value = rates?.point_value ?? 0
    return ok({
      points: { active: l.active, held: l.held, available: l.active - l.held, pending: l.pending },
      wallets: { active: l.wallets_active, held: l.wallets_held, pending: l.wallets_pending },
      expiring: { d30: l.d30, d90: l.d90, d365: l.d365 },
      totals: { issued: l.issued, redeemed: l.redeemed, expired: l.expired, reversed: l.reversed, restored: l.restored },
      redemption_rate: l.issued > 0 ? l.redeemed / l.issued : null,
      breakage_rate: l.issued > 0 ? l.expired / l.issued : null,
      value: { point_value: value, currency: rates?.currency ?? null, liability_amount: pointsToMinor(l.active, value) / 100, held_amount: pointsToMinor(l.held, value) / 100 },
      members: { total: l.total, active: l.active_members }
    })
  })

  const snapshot = Effect.fn("Loyalty.reservationSnapshot")(function*(reservationId: string | undefined) {
    const p = yield* CurrentPrincipal
    if (reservationId === undefined || reservationId.trim() === "" || [...reservationId].length > 200) {
      return yield* invalid({ reservation_id: ["is required, at most 200 characters"] })
    }
    const { holds, earns } = yield* read(p, (tx) => readReservation(tx, p, reservationId))
    if (holds.length === 0 && earns.length === 0) return yield* NotFound.of("No loyalty activity for this reservation", { reservation_id: ["no holds and no earnings"] }, "RESERVATION_NOT_FOUND")
    const n = (v: unknown) => (v as number | null) ?? 0
    const spent = holds.filter((h) => h.status === "confirmed" || h.status === "reversed")
    const earnStatus = (e: EarnRow): "reversed" | "pending" | "voided" | "confirmed" =>
      e.reversal_id !== null ? "reversed" : e.lot_status === "pending" ? "pending" : e.lot_status === "voided" ? "voided" : "confirmed"
    return ok({
      reservation_id: reservationId,
      member_ids: [...new Set([...holds, ...earns].map((x) => x.member_id))],
      credit: {
        holds: holds.map(({ amount_minor, ...h }) => ({ ...h, amount: n(amount_minor) / 100 })),
        net_points_spent: spent.reduce((s, h) => s + n(h.points) - n(h.points_restored), 0),
        net_amount: spent.reduce((s, h) => s + (h.status === "reversed" ? 0 : n(h.amount_minor)), 0) / 100
      },
      earn: {
        transactions: earns.map((e) => ({ transaction_id: e.transaction_id, member_id: e.member_id, points: e.points, status: earnStatus(e), created_at: e.created_at })),
        points: earns.filter((e) => earnStatus(e) === "confirmed" || earnStatus(e) === "pending").reduce((s, e) => s + n(e.points), 0)
      }
    })
  })

  /** A free-night reward of the catalogue (404 unknown, 409 not a free night). */
  const reward = Effect.fn("Loyalty.freeNightReward")(function*(p: Principal, rewardId: string) {
    const found = yield* read(p, (tx) => readReward(tx, p, rewardId))
    if (found === undefined) return yield* NotFound.of(`No reward with reward_id ${JSON.stringify(rewardId)}`, { reward_id: ["not found"] }, "REWARD_NOT_FOUND")
    if (found.type !== "free_night") return yield* Conflict.of("REWARD_UNAVAILABLE", "The reward is not a free night", { reward_id: ["is not a free_night reward"] })
    return { reward_id: rewardId }
  })

  return { quote, calculate, liability, snapshot, reward }
})
