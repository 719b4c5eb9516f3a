import { describe, expect, it } from "@effect/vitest"
import fc from "fast-check"
import { endHold, holdable, placeHold, refundHold, settle } from "../../../actors/loyalty/holds.ts"
import { reverseEarn } from "../../../actors/loyalty/reversal.ts"
import { earn, type Entry, emptyWallet, resolvePending, spend, spendable, type Wallet } from "../../../actors/loyalty/state.ts"

// Random command sequences over the pure wallet, holds and reversals included: after every command the balances equal
// the sums of the lots, of the holds and of the ledger, none is negative, and every hold, pending earn and refund
// moves at most once.

const DAY = 86_400_000
const T0 = Date.parse("2026-01-01T00:00:00Z")

type Command =
  | { readonly kind: "earn"; readonly points: number; readonly pending: boolean; readonly expiresInDays: number | null; readonly availableInHours: number | null }
  | { readonly kind: "redeem"; readonly points: number }
  | { readonly kind: "advance"; readonly hours: number }
  | { readonly kind: "resolve"; readonly move: "confirm" | "void"; readonly pick: number }
  | { readonly kind: "hold"; readonly points: number; readonly ttlHours: number }
  | { readonly kind: "end"; readonly move: "confirm" | "release"; readonly pick: number }
  | { readonly kind: "refund"; readonly pick: number }
  | { readonly kind: "reverse"; readonly pick: number }

const command: fc.Arbitrary<Command> = fc.oneof(
  fc.record({
    kind: fc.constant("earn" as const), points: fc.integer({ min: 1, max: 5_000 }), pending: fc.boolean(), expiresInDays: fc.option(fc.integer({ min: 1, max: 60 }), { nil: null }),
    availableInHours: fc.option(fc.integer({ min: 1, max: 24 * 30 }), { nil: null })
  }),
  fc.record({ kind: fc.constant("redeem" as const), points: fc.integer({ min: 1, max: 6_000 }) }),
  fc.record({ kind: fc.constant("advance" as const), hours: fc.integer({ min: 1, max: 24 * 20 }) }),
  fc.record({ kind: fc.constant("resolve" as const), move: fc.constantFrom("confirm" as const, "void" as const), pick: fc.nat() }),
  fc.record({ kind: fc.constant("hold" as const), points: fc.integer({ min: 1, max: 4_000 }), ttlHours: fc.integer({ min: 1, max: 24 * 10 }) }),
  fc.record({ kind: fc.constant("end" as const), move: fc.constantFrom("confirm" as const, "release" as const), pick: fc.nat() }),
  fc.record({ kind: fc.constant("refund" as const), pick: fc.nat() }),
  fc.record({ kind: fc.constant("reverse" as const), pick: fc.nat() })
)

let ids = 0
const id = () => `id-${++ids}`

const checkInvariants = (w: Wallet, ledger: ReadonlyArray<Entry>) => {
  const sum = (f: (l: Wallet["lots"][number]) => number) => w.lots.reduce((s, l) => s + f(l), 0)
  expect(w.balance_active).toBe(sum((l) => (l.status === "active" ? l.points_remaining : 0)))
  expect(w.balance_pending).toBe(sum((l) => (l.status === "pending" ? l.points_remaining : 0)))
  expect(w.balance_held).toBe(sum((l) => l.points_held))
  expect(w.balance_held).toBe(w.holds.filter((h) => h.status === "active").reduce((s, h) => s + h.points, 0))
  expect(w.balance_held).toBeLessThanOrEqual(w.balance_active)
  for (const l of w.lots) {
    expect(l.points_held).toBeGreaterThanOrEqual(0)
    expect(l.points_held).toBeLessThanOrEqual(l.points_remaining)
    expect(l.points_remaining).toBeLessThanOrEqual(l.points_original)
  }
  // Each active hold's lots hold at least its share, and outlive it.
  for (const h of w.holds.filter((x) => x.status === "active")) {
    for (const d of h.draws) {
      const lot = w.lots.find((l) => l.lot_id === d.lot_id)!
      expect(lot.points_held).toBeGreaterThanOrEqual(d.points)
      expect(lot.expires_at === null || lot.expires_at > h.expires_at).toBe(true)
    }
  }
  let [active, pending, held] = [0, 0, 0]
  for (const e of ledger) {
    active += e.points
    pending += e.pending_points
    held += e.held_points
    expect([e.balance_after, e.pending_after, e.held_after]).toEqual([active, pending, held])
    expect(e.balance_after).toBeGreaterThanOrEqual(e.held_after)
  }
  expect([active, pending, held]).toEqual([w.balance_active, w.balance_pending, w.balance_held])
}

describe("loyalty holds and reversals (pure transitions)", () => {
  it("random earn / redeem / hold / confirm / release / refund / reverse / expiry sequences keep every invariant", () => {
    const seen = new Set<string>()
    fc.assert(fc.property(fc.array(command, { minLength: 1, maxLength: 80, size: "max" }), (commands) => {
      let now = T0
      let w: Wallet = emptyWallet
      const ledger: Array<Entry> = []
      const earns: Array<{ lot_id: string; points: number; reversed: boolean }> = []
      const refunded = new Set<string>()
      let lifetime = 0
      const apply = (t: { wallet: Wallet; entries: ReadonlyArray<Entry> }) => {
        w = t.wallet
        ledger.push(...t.entries)
      }
      for (const c of commands) {
        const at = new Date(now).toISOString()
        const settled = settle(w, at, id)
        apply(settled)
        // Pending lots past their available_at confirm by themselves, into lifetime points.
        for (const e of settled.entries.filter((x) => x.kind === "confirm")) lifetime += e.points
        expect(w.holds.some((h) => h.status === "active" && h.expires_at <= at)).toBe(false)
        expect(w.lots.some((l) => l.status === "pending" && l.available_at != null && l.available_at <= at)).toBe(false)
        if (c.kind === "advance") now += c.hours * 3_600_000
        else if (c.kind === "earn") {
          const lot_id = id()
          apply(earn(w, {
            lot_id, entry_id: id(), points: c.points, status: c.pending ? "pending" : "confirmed", kind: "earn",
            expires_at: c.expiresInDays === null ? null : new Date(now + c.expiresInDays * DAY).toISOString(),
            available_at: c.availableInHours === null ? null : new Date(now + c.availableInHours * 3_600_000).toISOString(), lifetime: true
          }, at))
          if (!c.pending) lifetime += c.points
          earns.push({ lot_id, points: c.points, reversed: false })
        } else if (c.kind === "redeem") {
          const available = spendable(w, at)
          const r = spend(w, { entry_id: id(), points: c.points, kind: "redeem" }, at)
          expect(r.ok).toBe(c.points <= available)
          if (r.ok) apply(r.transition)
        } else if (c.kind === "resolve") {
          const lots = w.lots.filter((l) => l.status === "pending")
          const lot = lots[c.pick % Math.max(1, lots.length)]
          if (lot !== undefined) {
            if (c.move === "confirm") lifetime += lot.points_remaining
            apply(resolvePending(w, lot.lot_id, c.move, id(), at)!)
            expect(resolvePending(w, lot.lot_id, "confirm", id(), at)).toBeUndefined()
          }
        } else if (c.kind === "hold") {
          const expires = new Date(now + c.ttlHours * 3_600_000).toISOString()
          const can = holdable(w, at, expires)
          const before = spendable(w, at)
          const r = placeHold(w, { hold_id: id(), entry_id: id(), points: c.points, expires_at: expires }, at)
          expect(r.ok).toBe(c.points <= can)
          if (r.ok) {
            apply(r.transition)
            expect(spendable(w, at)).toBe(before - c.points)
          }
        } else if (c.kind === "end") {
          const active = w.holds.filter((h) => h.status === "active")
          const hold = active[c.pick % Math.max(1, active.length)]
          if (hold !== undefined) {
            apply(endHold(w, hold.hold_id, c.move, id(), at)!)
            // At most one terminal move.
            expect(endHold(w, hold.hold_id, "confirm", id(), at)).toBeUndefined()
            expect(endHold(w, hold.hold_id, "release", id(), at)).toBeUndefined()
          }
        } else if (c.kind === "refund") {
          const confirmed = w.holds.filter((h) => h.status === "confirmed" && !refunded.has(h.hold_id))
          const hold = confirmed[c.pick % Math.max(1, confirmed.length)]
          if (hold !== undefined) {
            const before = w.balance_active
            apply(refundHold(w, { hold_id: hold.hold_id, entry_id: id(), draws: hold.draws, new_lot_id: id() }, at))
            refunded.add(hold.hold_id)
            expect(w.balance_active).toBe(before + hold.points)
          }
        } else {
          const open = earns.filter((e) => !e.reversed && w.lots.some((l) => l.lot_id === e.lot_id && l.status !== "voided") || (!e.reversed && !w.lots.some((l) => l.lot_id === e.lot_id)))
          const target = open[c.pick % Math.max(1, open.length)]
          if (target !== undefined) {
            const lot = w.lots.find((l) => l.lot_id === target.lot_id)
            const pending = lot?.status === "pending"
            const before = w.balance_active
            const r = reverseEarn(w, { lot_id: target.lot_id, points: target.points, pending, lifetime: true, entry_id: id() }, at)
            apply(r.transition)
            target.reversed = true
            if (!pending) lifetime = Math.max(0, lifetime - target.points)
            expect(r.recovered + r.unrecovered).toBe(pending ? 0 : target.points)
            expect(before - w.balance_active).toBe(r.recovered)
          }
        }
        checkInvariants(w, ledger)
        // Spending, holds, refunds and expiry never change lifetime points; confirms add, reversals take.
        expect(w.lifetime_points).toBe(lifetime)
      }
      for (const e of ledger) seen.add(e.kind)
    }), { numRuns: 300 })
    // The runs reached every kind of movement (not just the trivial ones).
    expect([...seen].sort()).toEqual(["confirm", "credit_refund", "earn", "expire", "hold", "hold_confirm", "hold_expire", "hold_release", "redeem", "reverse", "void"])
  })
})
