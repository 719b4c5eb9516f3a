import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { testSql, type RunningPlatform } from "../support/platform.ts"
import { type LoyaltyIngress, startLoyaltyIngress } from "./loyaltyIngress.ts"
import { killOneEvery, spawnWorker, type WorkerProcess } from "../support/processes.ts"
import { FULL } from "./load.ts"

// An experience auction while one of three workers is SIGKILLed every second: members raise their bids concurrently
// (each bid with its key, retried on 503 or a broken connection until a definite answer), the auction ends and the
// workers' sweep closes it. Every bid is applied once (one hold and at most one decision per key), there is exactly one
// winner (the highest accepted bid), it pays once, and every other bid hold is released.

let ingress: RunningPlatform
let loyalty: LoyaltyIngress
const sql = testSql()

beforeAll(async () => {
  loyalty = await startLoyaltyIngress("auction", { replyTimeoutMs: 3_000, partitions: 8, leaseTtlMs: 3_000, ackWaitMs: 3_000 })
  ;({ ingress } = loyalty)
})
afterAll(async () => {
  await ingress?.stop()
  await sql.end()
})

const surely = (method: string, path: string, body?: unknown) => loyalty.surely(method, path, body)

describe("an experience auction with workers killed during the bidding and the close", () => {
  it("each bid applied once, one winner (the highest accepted bid) paying once, every other bid hold released", async () => {
    const bidders = FULL ? 40 : 15
    const bidsEach = FULL ? 8 : 5
    const sweepEnv = { GEP_AUCTION_SWEEP_MS: "1000" }
    const workers: Array<WorkerProcess> = await Promise.all([0, 1, 2].map(() => spawnWorker(ingress.config, sweepEnv)))
    const run = Date.now().toString(36)
    const members: Array<string> = []
    for (let i = 0; i < bidders; i++) {
      const res = await surely("POST", "/api/v1/loyalty/enroll", { email: `auction.${run}.${i}@gmail.com`, loyalty_balance: 50_000 })
      members.push(res.body.data.member_id)
    }
    const endsAt = new Date(Date.now() + (FULL ? 40_000 : 20_000)).toISOString()
    const created = await surely("POST", "/api/v1/loyalty/experiences", { name: "Chaos dinner", starting_bid: 100, min_increment: 10, ends_at: endsAt })
    expect(created.status, JSON.stringify(created.body)).toBe(201)
    const auction = created.body.data.experience_id as string
    const killer = killOneEvery(workers, 1_000, () => spawnWorker(ingress.config, sweepEnv))
    type Bid = { member: string; key: string; points: number; status?: number; code?: string; answer?: string }
    const bids: Array<Bid> = []
    try {
      await Promise.all(members.map(async (member, m) => {
        // Each next bid just above the minimum the last answer named, so bidders keep overtaking each other.
        let minNext = 100 + m * 7
        for (let b = 0; b < bidsEach; b++) {
          const points = minNext + Math.floor(Math.random() * 30)
          const bid: Bid = { member, key: `bid-${run}-${m}-${b}`, points }
          bids.push(bid)
          const res = await surely("POST", "/api/v1/loyalty/experiences/bid", { member_id: member, experience_id: auction, bid_points: points, external_reference_id: bid.key })
          Object.assign(bid, { status: res.status, code: res.body?.error?.code, answer: res.body?.data?.status })
          minNext = Math.max(points + 10, (res.body?.data?.min_next_bid ?? res.body?.error?.details?.min_next_bid ?? 0) as number)
        }
      }))
      // The close: by the sweep of whichever workers are alive, still under kills.
      let closed: Array<Record<string, unknown>> = []
      const deadline = Date.parse(endsAt) + 90_000
      while (Date.now() < deadline) {
        closed = await sql`SELECT a.status, count(r.*)::int AS redemptions FROM loyalty_auctions a LEFT JOIN loyalty_redemptions r ON r.auction_id = a.auction_id
          WHERE a.auction_id = ${auction} GROUP BY a.status`
        const active = (await sql`SELECT count(*)::int AS n FROM loyalty_holds WHERE auction_id = ${auction} AND status = 'active'`)[0]!.n as number
        if (closed[0]?.status === "closed" && closed[0]?.redemptions === 1 && active === 0) break
        await new Promise((r) => setTimeout(r, 500))
      }
      const kills = killer.kills()
      await killer.stop()
      const accepted = bids.filter((b) => b.status === 200)
      console.log(JSON.stringify({ chaos: "auction", bidders, bids: bids.length, accepted: accepted.length, kills,
        refused: bids.filter((b) => b.status === 409).reduce<Record<string, number>>((c, b) => ({ ...c, [b.code!]: (c[b.code!] ?? 0) + 1 }), {}) }))
      expect(bids.filter((b) => b.status !== 200 && !(b.status === 409 && ["BID_TOO_LOW", "AUCTION_CLOSED", "INSUFFICIENT_POINTS"].includes(b.code!)))
        .map((b) => [b.status, b.code])).toEqual([])
      expect(kills).toBeGreaterThanOrEqual(FULL ? 10 : 3)
      expect(closed).toEqual([{ status: "closed", redemptions: 1 }])
      // Once per key: one hold per bid that got a hold, one decision per hold.
      const perKey = await sql`SELECT h.external_reference_id AS k, count(*)::int AS holds, count(b.*)::int AS decisions
        FROM loyalty_holds h LEFT JOIN loyalty_bids b ON b.hold_id = h.hold_id WHERE h.auction_id = ${auction} GROUP BY h.external_reference_id`
      expect(perKey.filter((r) => r.holds !== 1 || r.decisions > 1)).toEqual([])
      const keys = new Set(perKey.map((r) => r.k as string))
      expect(accepted.filter((b) => !keys.has(b.key)).map((b) => b.key)).toEqual([])
      // One winner: the highest accepted bid; its hold alone is confirmed, every other is released.
      const top = accepted.reduce((a, b) => (b.points > a.points ? b : a))
      const won = await sql`SELECT member_id, points::int AS points FROM loyalty_bids WHERE auction_id = ${auction} AND status = 'won'`
      expect(won).toEqual([{ member_id: top.member, points: top.points }])
      const holds = await sql`SELECT status, count(*)::int AS n, sum(points)::int AS points FROM loyalty_holds WHERE auction_id = ${auction} GROUP BY status ORDER BY status`
      expect(holds.filter((r) => r.status !== "released")).toEqual([{ status: "confirmed", n: 1, points: top.points }])
      const [redemption] = await sql`SELECT member_id, points::int AS points FROM loyalty_redemptions WHERE auction_id = ${auction}`
      expect(redemption).toEqual({ member_id: top.member, points: top.points })
      // Every bidder's ledger adds up: the winner paid its bid once, the others paid nothing and hold nothing.
      const rows = await sql`
        SELECT m.member_id, m.balance_active::int AS balance, m.balance_held::int AS held,
          (SELECT coalesce(sum(points_remaining), 0)::int FROM loyalty_lots WHERE member_id = m.member_id AND status = 'active') AS lots,
          (SELECT coalesce(sum(points), 0)::int FROM loyalty_entries WHERE member_id = m.member_id) AS ledger
        FROM loyalty_members m WHERE m.member_id = ANY(${members}::uuid[])`
      for (const r of rows) {
        expect({ balance: r.balance, held: r.held, lots: r.lots, ledger: r.ledger }).toEqual(
          r.member_id === top.member ? { balance: 50_000 - top.points, held: 0, lots: 50_000 - top.points, ledger: 50_000 - top.points } : { balance: 50_000, held: 0, lots: 50_000, ledger: 50_000 })
      }
    } finally {
      await killer.stop()
      await Promise.all(workers.map((w) => w.stop()))
    }
  })
})
