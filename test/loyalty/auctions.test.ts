import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { loyaltyHarness } from "./support.ts"

const { h, setUp, tearDown, api, unique, enroll, member, ledgerAgrees, publish } = loyaltyHarness("loyalty-auctions")
beforeAll(setUp, 60_000)
afterAll(tearDown)

const experience = async (body: Record<string, unknown> = {}) => {
  const res = await api("POST", "/api/v1/loyalty/experiences", {
    name: "Chef's table", starting_bid: 100, min_increment: 10, ends_at: new Date(Date.now() + 120_000).toISOString(), ...body
  })
  expect(res.status, JSON.stringify(res.body)).toBe(201)
  return res.body.data as { experience_id: string; ends_at: string }
}
const bid = (body: Record<string, unknown>, headers?: Record<string, string>) =>
  api("POST", "/api/v1/loyalty/experiences/bid", { ...(headers === undefined ? { external_reference_id: unique("bid") } : {}), ...body }, headers)
const activeHolds = async (experienceId: string) =>
  h.sql`SELECT hold_id, member_id, points::int AS points FROM loyalty_holds WHERE auction_id = ${experienceId} AND status = 'active' ORDER BY points DESC`
/** Waits until the auction's releases (outbox messages to the bidders' actors) have been applied. */
const settled = async (experienceId: string, activeCount: number) => {
  const deadline = Date.now() + 20_000
  for (;;) {
    const rows = await activeHolds(experienceId)
    if (rows.length === activeCount || Date.now() > deadline) return rows
    await new Promise((r) => setTimeout(r, 100))
  }
}

describe("experience auctions", () => {
  it("20 concurrent bids: one leader (the highest), only its hold remains, every wallet's held points are its active holds", async () => {
    const e = await experience()
    const bidders = await Promise.all(Array.from({ length: 20 }, () => enroll(1000)))
    const amounts = bidders.map((_, i) => 100 + ((i * 7) % 20) * 15)
    const answers = await Promise.all(bidders.map((b, i) => bid({ member_id: b.member_id, experience_id: e.experience_id, bid_points: amounts[i] })))
    for (const a of answers) {
      expect([200, 409], JSON.stringify(a.body)).toContain(a.status)
      if (a.status === 409) expect(a.body.error.code).toBe("BID_TOO_LOW")
      else expect(["leading", "outbid"]).toContain(a.body.data.status)
    }
    const top = Math.max(...amounts)
    const winner = bidders[amounts.indexOf(top)]!
    const holds = await settled(e.experience_id, 1)
    expect(holds).toEqual([{ hold_id: expect.any(String), member_id: winner.member_id, points: top }])
    const [leaders] = await h.sql`SELECT count(*)::int AS n, max(member_id::text) AS member_id FROM loyalty_bids WHERE auction_id = ${e.experience_id} AND status = 'leading'`
    expect(leaders).toEqual({ n: 1, member_id: winner.member_id })
    for (const b of bidders) {
      const { balance, held } = await ledgerAgrees(b.member_id)
      expect(balance).toBe(1000)
      expect(held).toBe(b === winner ? top : 0)
    }
    const view = (await api("GET", `/api/v1/loyalty/experiences/${e.experience_id}`)).body.data
    expect(view).toMatchObject({ status: "open", current_high_bid: top, min_next_bid: top + 10, leader: { member_id: winner.member_id, bid_points: top } })
  }, 90_000)

  it("10 members sending 3 bids each at once (raises racing their own earlier bids): at quiescence only the leader's hold, every ledger agrees", async () => {
    const e = await experience({ starting_bid: 100, min_increment: 5 })
    const bidders = await Promise.all(Array.from({ length: 10 }, () => enroll(1000)))
    const sends = bidders.flatMap((b, i) => [0, 1, 2].map((k) => ({ b, points: 100 + ((i * 37 + k * 53) % 160) * 5 })))
    const answers = await Promise.all(sends.map((x) => bid({ member_id: x.b.member_id, experience_id: e.experience_id, bid_points: x.points })))
    for (const a of answers) {
      expect([200, 409], JSON.stringify(a.body)).toContain(a.status)
      if (a.status === 409) expect(["BID_TOO_LOW", "INSUFFICIENT_POINTS"]).toContain(a.body.error.code)
    }
    const holds = await settled(e.experience_id, 1)
    const view = (await api("GET", `/api/v1/loyalty/experiences/${e.experience_id}`)).body.data
    expect(holds).toEqual([{ hold_id: expect.any(String), member_id: view.leader.member_id, points: view.current_high_bid }])
    for (const b of bidders) expect((await ledgerAgrees(b.member_id)).held).toBe(b.member_id === view.leader.member_id ? view.current_high_bid : 0)
  }, 90_000)

  it("a raise replaces the member's hold; BID_TOO_LOW details; INSUFFICIENT_POINTS; retries replay; a key reused differently is 409", async () => {
    const e = await experience({ starting_bid: 200, min_increment: 50 })
    const [a, b, poor] = [await enroll(500), await enroll(1000), await enroll(100)]
    const low = await bid({ member_id: a.member_id, experience_id: e.experience_id, bid_points: 150 })
    expect(low.status).toBe(409)
    expect(low.body.error).toMatchObject({ code: "BID_TOO_LOW", details: { current_high_bid: null, min_next_bid: 200 } })
    const key = unique("a1")
    const first = await bid({ member_id: a.member_id, experience_id: e.experience_id, bid_points: 300, external_reference_id: key })
    expect(first.status, JSON.stringify(first.body)).toBe(200)
    expect(first.body.data).toMatchObject({ status: "leading", points_held: 300, current_high_bid: 300, min_next_bid: 350, idempotent_replay: false, replaced_hold_id: null })
    // 300 held of 500: a raise to 450 fits only because it replaces the 300 hold in the same member transaction.
    const raise = await bid({ email: a.email, experience_id: e.experience_id, bid_points: 450 }, { "Idempotency-Key": unique("a2") })
    expect(raise.status, JSON.stringify(raise.body)).toBe(200)
    expect(raise.body.data).toMatchObject({ status: "leading", points_held: 450, replaced_hold_id: first.body.data.hold_id, points_available: 50 })
    expect(await activeHolds(e.experience_id)).toEqual([{ hold_id: raise.body.data.hold_id, member_id: a.member_id, points: 450 }])
    const tooLow = await bid({ member_id: b.member_id, experience_id: e.experience_id, bid_points: 480 })
    expect(tooLow.status).toBe(409)
    expect(tooLow.body.error).toMatchObject({ code: "BID_TOO_LOW", details: { current_high_bid: 450, min_next_bid: 500 } })
    const broke = await bid({ member_id: poor.member_id, experience_id: e.experience_id, bid_points: 500 })
    expect(broke.status).toBe(409)
    expect(broke.body.error).toMatchObject({ code: "INSUFFICIENT_POINTS", details: { requested: 500, available: 100 } })
    const over = await bid({ member_id: b.member_id, experience_id: e.experience_id, bid_points: 600 })
    expect(over.body.data).toMatchObject({ status: "leading", current_high_bid: 600, min_next_bid: 650 })
    // The refused bids' holds and the outbid leader's are released by the auction (through the bidders' outboxes).
    expect(await settled(e.experience_id, 1)).toEqual([{ hold_id: over.body.data.hold_id, member_id: b.member_id, points: 600 }])
    // A retry replays: same bid and hold, nothing held again; the outbid bid now answers outbid.
    const again = await bid({ member_id: a.member_id, experience_id: e.experience_id, bid_points: 300, external_reference_id: key })
    expect(again.status, JSON.stringify(again.body)).toBe(200)
    expect(again.body.data).toMatchObject({ bid_id: first.body.data.bid_id, hold_id: first.body.data.hold_id, status: "outbid", points_held: 0, idempotent_replay: true })
    const conflict = await bid({ member_id: a.member_id, experience_id: e.experience_id, bid_points: 700, external_reference_id: key })
    expect(conflict.body.error.code).toBe("IDEMPOTENCY_CONFLICT")
    const [count] = await h.sql`SELECT count(*)::int AS n FROM loyalty_holds WHERE auction_id = ${e.experience_id} AND member_id = ${a.member_id}`
    expect(count!.n).toBe(3) // the refused 150, the 300 and the 450: the retry and the conflict held nothing
    for (const m of [a, b, poor]) await ledgerAgrees(m.member_id)
    expect(await member(a.member_id)).toMatchObject({ points_balance: 500, points_available: 500 })
    const unknown = await bid({ member_id: a.member_id, experience_id: "00000000-0000-4000-8000-000000000000", bid_points: 300 })
    expect(unknown.status).toBe(404)
    expect(unknown.body.error.code).toBe("EXPERIENCE_NOT_FOUND")
    expect((await api("GET", "/api/v1/loyalty/experiences/00000000-0000-4000-8000-000000000000")).body.error.code).toBe("EXPERIENCE_NOT_FOUND")
  }, 90_000)

  it("the close: the winner's hold becomes a redemption, a bid after the end is 409 and its hold is released, then nothing is held at all", async () => {
    const e = await experience({ ends_at: new Date(Date.now() + 4_000).toISOString() })
    const [w, l, late, later] = [await enroll(1000), await enroll(1000), await enroll(1000), await enroll(1000)]
    expect((await bid({ member_id: l.member_id, experience_id: e.experience_id, bid_points: 200 })).body.data.status).toBe("leading")
    const won = await bid({ member_id: w.member_id, experience_id: e.experience_id, bid_points: 300 })
    expect(won.body.data.status).toBe("leading")
    await new Promise((r) => setTimeout(r, Date.parse(e.ends_at) + 2_500 - Date.now()))
    // After the end, not yet closed: the late bid's hold is placed, the auction closes first, refuses it and releases it.
    const tooLate = await bid({ member_id: late.member_id, experience_id: e.experience_id, bid_points: 900 })
    expect(tooLate.status, JSON.stringify(tooLate.body)).toBe(409)
    expect(tooLate.body.error).toMatchObject({ code: "AUCTION_CLOSED", details: { current_high_bid: 300 } })
    await settled(e.experience_id, 0)
    const [redemption] = await h.sql`SELECT member_id, points::int AS points, status, entry_id FROM loyalty_redemptions WHERE auction_id = ${e.experience_id}`
    expect(redemption).toMatchObject({ member_id: w.member_id, points: 300, status: "pending" })
    const holds = await h.sql`SELECT member_id, status FROM loyalty_holds WHERE auction_id = ${e.experience_id} ORDER BY created_at`
    const holdsOf = (m: { member_id: string }) => holds.filter((x) => x.member_id === m.member_id).map((x) => x.status)
    expect(holdsOf(w)).toEqual(["confirmed"])
    expect(holdsOf(l)).toEqual(["released"])
    // The late bid's hold was placed and released when the bid reached the auction first; when a sweep closed the
    // auction before (a sweep of any platform on this database may), the bid was refused before anything was held.
    expect(holdsOf(late)).toHaveLength(holdsOf(late).filter((s) => s === "released").length)
    expect(holdsOf(late).length).toBeLessThanOrEqual(1)
    expect(await member(w.member_id)).toMatchObject({ points_balance: 700, points_available: 700, lifetime_points: 0 })
    for (const m of [w, l, late]) expect(await member(m.member_id)).toMatchObject({ points_held: 0 })
    for (const m of [w, l, late]) await ledgerAgrees(m.member_id)
    const view = (await api("GET", `/api/v1/loyalty/experiences/${e.experience_id}`)).body.data
    expect(view).toMatchObject({ status: "closed", min_next_bid: null, winner: { member_id: w.member_id, bid_points: 300, redemption_id: expect.any(String) } })
    // Closed: refused at the ingress, nothing held; the winner's retry still replays its bid.
    const key = unique("later")
    const after = await bid({ member_id: later.member_id, experience_id: e.experience_id, bid_points: 950, external_reference_id: key })
    expect(after.body.error.code).toBe("AUCTION_CLOSED")
    expect((await h.sql`SELECT 1 FROM loyalty_holds WHERE external_reference_id = ${key}`).length).toBe(0)
    const tx = await api("GET", `/api/v1/loyalty/transactions?member_id=${w.member_id}`)
    expect(tx.body.data.items.some((i: { kind: string; redemption_id: string | null }) => i.redemption_id === view.winner.redemption_id)).toBe(true)
  }, 90_000)

  it("an auction nobody bids on or reads after its end is closed by the workers' sweep: the winner pays once", async () => {
    const e = await experience({ ends_at: new Date(Date.now() + 2_000).toISOString() })
    const w = await enroll(800)
    expect((await bid({ member_id: w.member_id, experience_id: e.experience_id, bid_points: 500 })).body.data.status).toBe("leading")
    const deadline = Date.now() + 30_000
    let rows: Array<Record<string, unknown>> = []
    while (Date.now() < deadline) {
      rows = await h.sql`SELECT a.status, r.points::int AS points FROM loyalty_auctions a LEFT JOIN loyalty_redemptions r ON r.auction_id = a.auction_id
        WHERE a.auction_id = ${e.experience_id}`
      if (rows[0]!.points !== null) break
      await new Promise((r) => setTimeout(r, 250))
    }
    expect(rows).toEqual([{ status: "closed", points: 500 }])
    expect(await ledgerAgrees(w.member_id)).toEqual({ balance: 300, held: 0 })
  }, 60_000)

  it("a close that names a winning hold a raise already replaced: the raise's hold is released and the winning points spent, once", async () => {
    const e = await experience({ ends_at: new Date(Date.now() + 3_000).toISOString() })
    const m = await enroll(1000)
    const first = (await bid({ member_id: m.member_id, experience_id: e.experience_id, bid_points: 300 })).body.data
    const raise = (await bid({ member_id: m.member_id, experience_id: e.experience_id, bid_points: 400 })).body.data
    expect(raise).toMatchObject({ status: "leading", replaced_hold_id: first.hold_id })
    // The close of a world where the raise reached the auction only after it closed: the winner is the replaced hold.
    const settle = await publish("auctionSettle", { member_id: m.member_id, auction_id: e.experience_id, hold_id: first.hold_id, points: 300, name: "Chef's table" })
    expect(settle.exit._tag).toBe("Success")
    expect(await ledgerAgrees(m.member_id)).toEqual({ balance: 700, held: 0 })
    // The real close then names the raise: the auction's one redemption is there already, nothing is charged again.
    await new Promise((r) => setTimeout(r, Math.max(0, Date.parse(e.ends_at) + 2_500 - Date.now())))
    const view = (await api("GET", `/api/v1/loyalty/experiences/${e.experience_id}`)).body.data
    expect(view).toMatchObject({ status: "closed", winner: { member_id: m.member_id, bid_points: 400 } })
    await new Promise((r) => setTimeout(r, 1_500))
    const redemptions = await h.sql`SELECT points::int AS points FROM loyalty_redemptions WHERE auction_id = ${e.experience_id}`
    expect(redemptions).toEqual([{ points: 300 }])
    expect(await ledgerAgrees(m.member_id)).toEqual({ balance: 700, held: 0 })
  }, 60_000)
})
