import { describe, expect, it } from "@effect/vitest"
import fc from "fast-check"
import { CLOSE_GRACE_MS, closeDue, decideBid, minNextBid, replacedHolds } from "../../../core/loyalty/auction.ts"

// The auction protocol as a model: bidders' actors place holds (a raise replacing the member's earlier hold), the
// auction decides each hold's bid once, in whatever order the envelopes reach it (outbox and ingress race, members
// race), and tells the bidders to release or to pay. Random schedules check that a leader always has a hold behind
// it, that at quiescence only the leader's hold is active, and that after the close the winner pays exactly once.

const T0 = Date.parse("2026-06-01T12:00:00Z")
const ENDS = T0 + 3_000
const iso = (t: number) => new Date(t).toISOString()
const TERMS = { starting_bid: 100, min_increment: 10, ends_at: iso(ENDS) }

type Step =
  | { readonly kind: "bid"; readonly member: number; readonly points: number }
  | { readonly kind: "deliver"; readonly pick: number; readonly twice: boolean }
  | { readonly kind: "tell"; readonly pick: number }
  | { readonly kind: "advance"; readonly ms: number }

const step: fc.Arbitrary<Step> = fc.oneof(
  { arbitrary: fc.record({ kind: fc.constant("bid" as const), member: fc.integer({ min: 0, max: 3 }), points: fc.integer({ min: 18, max: 120 }).map((n) => n * 5) }), weight: 4 },
  { arbitrary: fc.record({ kind: fc.constant("deliver" as const), pick: fc.nat(), twice: fc.boolean() }), weight: 4 },
  { arbitrary: fc.record({ kind: fc.constant("tell" as const), pick: fc.nat() }), weight: 3 },
  { arbitrary: fc.record({ kind: fc.constant("advance" as const), ms: fc.integer({ min: 0, max: 1_500 }) }), weight: 2 }
)

interface Hold { readonly id: number; readonly member: number; readonly points: number; status: "active" | "released" | "confirmed" }
type Told = { readonly kind: "release"; readonly hold: number } | { readonly kind: "settle"; readonly member: number; readonly hold: number; readonly points: number }

const run = (steps: ReadonlyArray<Step>) => {
  let now = T0
  const holds: Array<Hold> = []
  const toAuction: Array<{ hold: number; points: number; placed_at: string }> = []
  const toMembers: Array<Told> = []
  const decided = new Set<number>()
  const paid: Array<{ member: number; points: number }> = []
  const a = { status: "open" as "open" | "closed", current_high_bid: null as number | null, leader: null as { hold: number; member: number; points: number } | null, ...TERMS }

  const close = () => {
    if (!closeDue(a, now)) return
    a.status = "closed"
    if (a.leader !== null) toMembers.push({ kind: "settle", member: a.leader.member, hold: a.leader.hold, points: a.leader.points })
  }
  const decide = (m: { hold: number; points: number; placed_at: string }) => {
    close()
    if (decided.has(m.hold)) return
    decided.add(m.hold)
    const d = decideBid(a, m)
    if (!d.accepted) return void toMembers.push({ kind: "release", hold: m.hold })
    if (a.leader !== null) toMembers.push({ kind: "release", hold: a.leader.hold })
    a.leader = { hold: m.hold, member: holds[m.hold]!.member, points: m.points }
    a.current_high_bid = m.points
  }
  const apply = (t: Told) => {
    if (t.kind === "release") {
      const h = holds[t.hold]!
      if (h.status === "active") h.status = "released"
      return
    }
    if (paid.length > 0) return // one redemption per auction
    const h = holds[t.hold]!
    if (h.status === "active") h.status = "confirmed"
    else for (const x of holds) if (x.member === t.member && x.status === "active") x.status = "released"
    paid.push({ member: t.member, points: t.points })
  }
  /** A leader always has a hold behind it: its own, or the active raise (≥ its bid + increment) on its way to the auction. */
  const leaderCovered = () => {
    if (a.leader === null || paid.length > 0) return true
    const l = a.leader
    return holds[l.hold]!.status === "active" ||
      toAuction.some((m) => holds[m.hold]!.member === l.member && holds[m.hold]!.status === "active" && m.points >= l.points + TERMS.min_increment)
  }

  for (const s of steps) {
    if (s.kind === "advance") now += s.ms
    else if (s.kind === "bid") {
      const live = holds.filter((h) => h.member === s.member && h.status === "active")
      for (const h of replacedHolds(live, { points: s.points, placed_at: iso(now) }, TERMS)) h.status = "released"
      holds.push({ id: holds.length, member: s.member, points: s.points, status: "active" })
      toAuction.push({ hold: holds.length - 1, points: s.points, placed_at: iso(now) })
    } else if (s.kind === "deliver" && toAuction.length > 0) {
      const m = toAuction[s.pick % toAuction.length]!
      decide(m)
      // The ingress's ask and the outbox envelope: the second delivery of a hold's bid changes nothing.
      if (s.twice) decide(m)
      toAuction.splice(s.pick % toAuction.length, 1)
    } else if (s.kind === "tell" && toMembers.length > 0) {
      apply(toMembers.splice(s.pick % toMembers.length, 1)[0]!)
    }
    expect(leaderCovered()).toBe(true)
  }
  const drain = () => {
    while (toAuction.length > 0) decide(toAuction.shift()!)
    while (toMembers.length > 0) apply(toMembers.shift()!)
  }
  drain()
  if (a.status === "open") {
    // Quiescent and open: only the leader's hold is held.
    expect(holds.filter((h) => h.status === "active").map((h) => h.id)).toEqual(a.leader === null ? [] : [a.leader.hold])
    expect(minNextBid(a)).toBe(a.leader === null ? TERMS.starting_bid : a.leader.points + TERMS.min_increment)
  }
  now = Math.max(now, ENDS + CLOSE_GRACE_MS)
  close()
  drain()
  // Closed and quiescent: nothing held; the winner paid its winning bid once (from its hold or, when a raise had
  // replaced it, directly); nobody else paid.
  expect(holds.filter((h) => h.status === "active")).toEqual([])
  expect(paid).toEqual(a.leader === null ? [] : [{ member: a.leader.member, points: a.leader.points }])
  expect(holds.filter((h) => h.status === "confirmed").length).toBeLessThanOrEqual(1)
}

describe("experience auction protocol (model)", () => {
  it("bids delivered in any order, twice, raises racing their own earlier bids, the close anywhere: covered leader, one payment", () => {
    fc.assert(fc.property(fc.array(step, { minLength: 1, maxLength: 60 }), (steps) => run(steps)), { numRuns: 2_000 })
  })

  it("decideBid: closed or placed at the end → AUCTION_CLOSED; below the next minimum → BID_TOO_LOW", () => {
    const open = { status: "open" as const, current_high_bid: 200, ...TERMS }
    expect(decideBid(open, { points: 209, placed_at: iso(T0) })).toEqual({ accepted: false, refusal: "BID_TOO_LOW", min_next_bid: 210 })
    expect(decideBid(open, { points: 210, placed_at: iso(T0) })).toEqual({ accepted: true })
    expect(decideBid(open, { points: 999, placed_at: iso(ENDS) })).toMatchObject({ refusal: "AUCTION_CLOSED" })
    expect(decideBid({ ...open, status: "closed" }, { points: 999, placed_at: iso(T0) })).toMatchObject({ refusal: "AUCTION_CLOSED" })
    expect(replacedHolds([{ points: 200 }, { points: 205 }], { points: 210, placed_at: iso(T0) }, TERMS)).toEqual([{ points: 200 }])
    expect(replacedHolds([{ points: 200 }], { points: 300, placed_at: iso(ENDS) }, TERMS)).toEqual([])
  })
})
