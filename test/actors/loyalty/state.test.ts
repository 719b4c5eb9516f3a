import { describe, expect, it } from "@effect/vitest"
import fc from "fast-check"
import { expiryOf, stayPoints } from "../../../actors/loyalty/earning.ts"
import { minorToPoints, pointsToMinor } from "../../../core/loyalty/conversion.ts"
import { drawOrder, earn, type Entry, emptyWallet, expire, resolvePending, setBalance, spend, spendable, type Wallet } from "../../../actors/loyalty/state.ts"

const DAY = 86_400_000
const T0 = Date.parse("2026-01-01T00:00:00Z")

type Command =
  | { readonly kind: "earn"; readonly points: number; readonly pending: boolean; readonly expiresInDays: number | null }
  | { readonly kind: "redeem"; readonly points: number }
  | { readonly kind: "set"; readonly target: number }
  | { readonly kind: "advance"; readonly days: number }
  | { readonly kind: "resolve"; readonly move: "confirm" | "void"; readonly pick: number }

const command: fc.Arbitrary<Command> = fc.oneof(
  fc.record({ kind: fc.constant("earn" as const), points: fc.integer({ min: 1, max: 5_000 }), pending: fc.boolean(), expiresInDays: fc.option(fc.integer({ min: 1, max: 400 }), { nil: null }) }),
  fc.record({ kind: fc.constant("redeem" as const), points: fc.integer({ min: 1, max: 8_000 }) }),
  fc.record({ kind: fc.constant("set" as const), target: fc.integer({ min: 0, max: 10_000 }) }),
  fc.record({ kind: fc.constant("advance" as const), days: fc.integer({ min: 1, max: 200 }) }),
  fc.record({ kind: fc.constant("resolve" as const), move: fc.constantFrom("confirm" as const, "void" as const), pick: fc.nat() })
)

let ids = 0
const id = () => `id-${++ids}`

/** The invariants every wallet and its whole ledger keep, after every command. */
const checkInvariants = (w: Wallet, ledger: ReadonlyArray<Entry>) => {
  const sumLots = (status: string) => w.lots.filter((l) => l.status === status).reduce((s, l) => s + l.points_remaining, 0)
  expect(w.balance_active).toBeGreaterThanOrEqual(0)
  expect(w.balance_pending).toBeGreaterThanOrEqual(0)
  expect(w.balance_active).toBe(sumLots("active"))
  expect(w.balance_pending).toBe(sumLots("pending"))
  for (const l of w.lots) {
    expect(l.points_remaining).toBeGreaterThanOrEqual(0)
    expect(l.points_remaining).toBeLessThanOrEqual(l.points_original)
    if (l.status === "expired") expect(l.points_remaining).toBe(0)
  }
  // The ledger: active movements sum to the active balance, pending ones to the pending balance, and every
  // entry's balance_after is the running sum at that entry.
  let running = 0
  let pending = 0
  for (const e of ledger) {
    running += e.points
    pending += e.pending_points
    expect(e.balance_after).toBe(running)
    expect(e.pending_after).toBe(pending)
    expect(e.balance_after).toBeGreaterThanOrEqual(0)
  }
  expect(running).toBe(w.balance_active)
  expect(pending).toBe(w.balance_pending)
  // Sequence numbers strictly increase (the ledger's order).
  for (let i = 1; i < ledger.length; i++) expect(ledger[i]!.seq).toBeGreaterThan(ledger[i - 1]!.seq)
}

describe("loyalty ledger (pure transitions)", () => {
  it("random earn / redeem / expire / set-balance sequences: balance = Σ lots = Σ ledger, never negative, balance_after consistent", () => {
    fc.assert(fc.property(fc.array(command, { minLength: 1, maxLength: 60 }), (commands) => {
      let now = T0
      let w: Wallet = emptyWallet
      const ledger: Array<Entry> = []
      let lifetime = 0
      for (const c of commands) {
        const at = new Date(now).toISOString()
        // As the actor does: lots past their expiry expire before the command is applied.
        const expired = expire(w, at, id)
        for (const e of expired.entries) {
          const lot = w.lots.find((l) => l.lot_id === e.draws[0]!.lot_id)!
          expect(lot.expires_at! <= at).toBe(true)
          expect(-e.points).toBe(lot.points_remaining)
        }
        w = expired.wallet
        ledger.push(...expired.entries)
        if (c.kind === "advance") now += c.days * DAY
        else if (c.kind === "earn") {
          const t = earn(w, {
            lot_id: id(), entry_id: id(), points: c.points, status: c.pending ? "pending" : "confirmed", kind: "earn",
            expires_at: c.expiresInDays === null ? null : new Date(now + c.expiresInDays * DAY).toISOString(), lifetime: true
          }, at)
          if (!c.pending) lifetime += c.points
          w = t.wallet
          ledger.push(...t.entries)
        } else if (c.kind === "redeem") {
          const available = spendable(w, at)
          const order = drawOrder(w.lots, at).map((l) => l.lot_id)
          const r = spend(w, { entry_id: id(), points: c.points, kind: "redeem" }, at)
          expect(r.ok).toBe(c.points <= available)
          if (r.ok) {
            const [entry] = r.transition.entries
            // Drawn oldest-expiring first: the lots drawn are a prefix of the draw order, all but the last emptied.
            expect(entry!.draws.map((d) => d.lot_id)).toEqual(order.slice(0, entry!.draws.length))
            expect(entry!.draws.reduce((s, d) => s + d.points, 0)).toBe(c.points)
            for (const d of entry!.draws) {
              const lot = w.lots.find((l) => l.lot_id === d.lot_id)!
              expect(lot.status).toBe("active")
              expect(lot.expires_at === null || lot.expires_at > at).toBe(true)
            }
            w = r.transition.wallet
            ledger.push(...r.transition.entries)
          }
        } else if (c.kind === "resolve") {
          const pendingLots = w.lots.filter((l) => l.status === "pending")
          const lot = pendingLots[c.pick % Math.max(1, pendingLots.length)]
          if (lot !== undefined) {
            const t = resolvePending(w, lot.lot_id, c.move, id(), at)!
            if (c.move === "confirm") lifetime += lot.points_remaining
            w = t.wallet
            ledger.push(...t.entries)
            // At most once: the same lot cannot be resolved again.
            expect(resolvePending(w, lot.lot_id, "confirm", id(), at)).toBeUndefined()
            expect(resolvePending(w, lot.lot_id, "void", id(), at)).toBeUndefined()
          }
        } else {
          const t = setBalance(w, c.target, { lot_id: id(), entry_id: id() }, null, at)
          w = t.wallet
          ledger.push(...t.entries)
          expect(w.balance_active).toBe(c.target)
        }
        checkInvariants(w, ledger)
        // Spending, expiry and balance adjustments never change lifetime points.
        expect(w.lifetime_points).toBe(lifetime)
      }
    }), { numRuns: 300 })
  })

  it("a refused spend changes nothing", () => {
    const t = earn(emptyWallet, { lot_id: "l1", entry_id: "e1", points: 100, status: "confirmed", kind: "earn", expires_at: null, lifetime: true }, "2026-01-01T00:00:00.000Z")
    expect(spend(t.wallet, { entry_id: "e2", points: 101, kind: "redeem" }, "2026-01-01T00:00:00.000Z")).toEqual({ ok: false, requested: 101, available: 100 })
  })

  it("pending points are not spendable", () => {
    const t = earn(emptyWallet, { lot_id: "l1", entry_id: "e1", points: 100, status: "pending", kind: "earn", expires_at: null, lifetime: true }, "2026-01-01T00:00:00.000Z")
    expect(spendable(t.wallet, "2026-01-01T00:00:00.000Z")).toBe(0)
    expect(t.wallet.lifetime_points).toBe(0)
  })

  it("stay points floor the amount, apply the multiplier, and add nights; expiry is whole calendar months", () => {
    const p = { currency: "EUR", points_per_unit: 10, points_per_night: 100, expiry_months: 12 }
    expect(stayPoints(p, 1, { amount: 123.45, currency: "EUR", nights: 2, reservation_id: null, check_in: null, check_out: null, hotel: null })).toBe(1234 + 200)
    expect(stayPoints(p, 1.5, { amount: 10.09, currency: "EUR", nights: 0, reservation_id: null, check_in: null, check_out: null, hotel: null })).toBe(150)
    expect(expiryOf(12, "2026-02-28T10:00:00.000Z")).toBe("2027-02-28T10:00:00.000Z")
    expect(expiryOf(1, "2026-01-31T10:00:00.000Z")).toBe("2026-02-28T10:00:00.000Z")
    expect(expiryOf(null, "2026-01-31T10:00:00.000Z")).toBeNull()
  })

  it("money → points is a safe integer for any point_value the programme takes, 5e-324 included", () => {
    fc.assert(fc.property(fc.double({ min: 5e-324, max: 1e12, noNaN: true }), fc.integer({ min: 1, max: 1e14 }), (value, minor) => {
      const points = minorToPoints(minor, value)
      expect(Number.isSafeInteger(points) && points >= 1).toBe(true)
    }))
    expect(minorToPoints(1e14, 5e-324)).toBe(Number.MAX_SAFE_INTEGER)
    expect(minorToPoints(1, 1e12)).toBe(1) // a cent costs a point however much a point is worth
    expect(minorToPoints(0, 0.01)).toBe(0)
  })

  it("points ↔ money never creates value: points(money(p)) ≤ p and money(points(m)) ≥ m", () => {
    fc.assert(fc.property(fc.integer({ min: 1, max: 1_000_000 }), fc.constantFrom(0.001, 0.005, 0.01, 0.0125, 0.1, 1), (x, value) => {
      expect(minorToPoints(pointsToMinor(x, value), value)).toBeLessThanOrEqual(x)
      expect(pointsToMinor(minorToPoints(x, value), value)).toBeGreaterThanOrEqual(x)
    }))
  })
})
