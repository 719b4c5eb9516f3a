import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { loyaltyHarness } from "./support.ts"

const { h, setUp, tearDown, api, unique, enroll, member, ledgerAgrees } = loyaltyHarness("loyalty-reports")
beforeAll(setUp, 60_000)
afterAll(tearDown)

const earn = (body: Record<string, unknown>) => api("POST", "/api/v1/loyalty/points", { external_reference_id: unique("e"), ...body })
const redeem = (memberId: string, points: number) => api("POST", "/api/v1/loyalty/redeem", { member_id: memberId, points, external_reference_id: unique("r") })
const reverse = (body: Record<string, unknown>) => api("POST", "/api/v1/loyalty/reverse", body)

describe("earning reversal", () => {
  it("a confirmed stay is taken back once, never below zero, the shortfall reported; lifetime and qualifying totals drop", async () => {
    const m = await enroll()
    const reservation = unique("RES")
    const stay = await earn({ member_id: m.member_id, amount: 100, currency: "EUR", nights: 2, reservation_id: reservation })
    expect(stay.body.data.points_awarded).toBe(1200)
    await earn({ member_id: m.member_id, points: 100 })
    expect((await redeem(m.member_id, 1000)).status).toBe(200)
    const first = await reverse({ reservation_id: reservation, reason: "cancellation" })
    expect(first.status, JSON.stringify(first.body)).toBe(200)
    expect(first.body.data).toMatchObject({
      points_reversed: 300, points_voided: 0, points_unrecovered: 900, idempotent_replay: false, points_balance: 0, lifetime_points: 100,
      reversed: [{ transaction_id: stay.body.data.transaction_id, status: "reversed", points_reversed: 300, points_unrecovered: 900 }]
    })
    const again = await reverse({ transaction_id: stay.body.data.transaction_id })
    expect(again.body.data).toMatchObject({ points_reversed: 0, idempotent_replay: true, reversed: [{ status: "already_reversed" }], points_balance: 0, lifetime_points: 100 })
    expect((await member(m.member_id)).tier_progress).toMatchObject({ qualifying_points: 0, qualifying_nights: 0 })
    expect(await ledgerAgrees(m.member_id)).toEqual({ balance: 0, held: 0 })
  })

  it("a pending earn is voided (a later confirm is 409); concurrent reversals of one earn apply once; an unknown earn is 404", async () => {
    const m = await enroll(50)
    const pending = await earn({ member_id: m.member_id, points: 400, status: "pending" })
    const answers = await Promise.all([1, 2, 3].map(() => reverse({ transaction_id: pending.body.data.transaction_id, reason: "no_show" })))
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200])
    expect(answers.map((a) => a.body.data.reversed[0].status).sort()).toEqual(["already_reversed", "already_reversed", "voided"])
    expect(answers.reduce((s, a) => s + a.body.data.points_voided, 0)).toBe(400)
    const late = await api("POST", "/api/v1/loyalty/points/confirm", { transaction_id: pending.body.data.transaction_id })
    expect(late.status).toBe(409)
    expect((await member(m.member_id))).toMatchObject({ points_balance: 50, points_pending: 0, lifetime_points: 0 })
    expect((await reverse({ transaction_id: "00000000-0000-4000-8000-000000000000" })).status).toBe(404)
    expect((await reverse({ reservation_id: unique("NONE") })).body.error.code).toBe("EARN_NOT_FOUND")
    expect((await reverse({})).status).toBe(400)
    expect(await ledgerAgrees(m.member_id)).toEqual({ balance: 50, held: 0 })
  })
})

describe("actions, calculate, free nights", () => {
  it("a partial confirm posts part of a pending stay and voids the rest; lifetime, qualifying and a later reversal follow what was confirmed", async () => {
    const m = await enroll()
    const stay = await earn({ member_id: m.member_id, amount: 100, currency: "EUR", nights: 3, status: "pending" })
    expect(stay.body.data).toMatchObject({ status: "pending", points_awarded: 1300, points_pending: 1300 })
    const id = stay.body.data.transaction_id
    const tooMuch = await api("POST", "/api/v1/loyalty/points/confirm", { transaction_id: id, points: 1301 })
    expect(tooMuch.status).toBe(409)
    expect(tooMuch.body.error).toMatchObject({ code: "POINTS_EXCEED_PENDING", details: { pending: 1300 } })
    expect(tooMuch.body.error.details).toHaveProperty("points")
    const part = await api("POST", "/api/v1/loyalty/points/confirm", { transaction_id: id, points: 1000 })
    expect(part.status, JSON.stringify(part.body)).toBe(200)
    expect(part.body.data).toMatchObject({ status: "confirmed", points_confirmed: 1000, points_voided: 300, points_balance: 1000, points_pending: 0, lifetime_points: 1000 })
    expect((await api("POST", "/api/v1/loyalty/points/confirm", { transaction_id: id, points: 1000 })).body.data).toMatchObject({ points_confirmed: 0, idempotent_replay: true })
    const [q] = await h.sql`SELECT qualifying_points::int AS p, qualifying_nights::int AS n FROM loyalty_members WHERE member_id = ${m.member_id}`
    expect(q).toEqual({ p: 1000, n: 3 })
    expect(await ledgerAgrees(m.member_id)).toMatchObject({ balance: 1000 })
    const back = await reverse({ transaction_id: id, reason: "cancellation" })
    expect(back.body.data).toMatchObject({ points_reversed: 1000, points_unrecovered: 0, points_balance: 0, lifetime_points: 0 })
    const [after] = await h.sql`SELECT qualifying_points::int AS p, qualifying_nights::int AS n FROM loyalty_members WHERE member_id = ${m.member_id}`
    expect(after).toEqual({ p: 0, n: 0 })
    expect(await ledgerAgrees(m.member_id)).toMatchObject({ balance: 0 })
  })

  it("/actions awards points under an action-scoped key (a retry replays, a reuse with other points is 409)", async () => {
    const m = await enroll()
    const key = unique("a")
    const first = await api("POST", "/api/v1/loyalty/actions", { member_id: m.member_id, action_type: "review", scope_key: "RES-1", points: 250, external_reference_id: key })
    expect(first.status, JSON.stringify(first.body)).toBe(200)
    expect(first.body.data).toMatchObject({ action_type: "review", points_awarded: 250, idempotent_replay: false, points_balance: 250 })
    const replay = await api("POST", "/api/v1/loyalty/actions", { email: m.email, action_type: "review", scope_key: "RES-1", points: 250 }, { "Idempotency-Key": key })
    expect(replay.body.data).toMatchObject({ transaction_id: first.body.data.transaction_id, points_awarded: 0, idempotent_replay: true })
    const conflict = await api("POST", "/api/v1/loyalty/actions", { member_id: m.member_id, action_type: "survey", scope_key: "RES-1", points: 250, external_reference_id: key })
    expect(conflict.body.error.code).toBe("IDEMPOTENCY_CONFLICT")
    expect((await api("POST", "/api/v1/loyalty/actions", { member_id: m.member_id, action_type: "Bad Type", points: 1, external_reference_id: "k" })).body.error.details).toHaveProperty("action_type")
    const items = (await api("GET", `/api/v1/loyalty/transactions?member_id=${m.member_id}`)).body.data.items
    expect(items[0]).toMatchObject({ kind: "earn", reason: "action: review", points: 250 })
  })

  it("/calculate answers what /points then awards for the same stay, and writes nothing", async () => {
    const m = await enroll()
    const calc = await api("POST", "/api/v1/loyalty/calculate", { member_id: m.member_id, amount: 123.45, currency: "eur", nights: 3 })
    expect(calc.status, JSON.stringify(calc.body)).toBe(200)
    expect(calc.body.data).toMatchObject({ points: 1534, qualifying_nights: 3, eligible: true, tier_multiplier: 1 })
    expect(calc.body.data.breakdown).toEqual([{ rule: "amount", points: 1234 }, { rule: "tier_multiplier", points: 0 }, { rule: "nights", points: 300 }])
    const earned = await earn({ member_id: m.member_id, amount: 123.45, currency: "EUR", nights: 3 })
    expect(earned.body.data.points_awarded).toBe(calc.body.data.points)
    expect((await api("POST", "/api/v1/loyalty/calculate", { amount: 1, currency: "GBP" })).status).toBe(422)
    expect((await api("POST", "/api/v1/loyalty/calculate", { amount: -1, currency: "EUR" })).status).toBe(400)
  })

  it("/redeem-free-night: engine_api is 501 with nothing written; a voucher costs nights × the reward and replays on retry", async () => {
    const m = await enroll(5000)
    const reward = (await api("POST", "/api/v1/loyalty/rewards", { name: "Free night", type: "free_night", points_cost: 2000, auto_fulfill: false, stock: 5 })).body.data.reward_id
    const engine = await api("POST", "/api/v1/loyalty/redeem-free-night", { member_id: m.member_id, reward_id: reward, nights: 1, delivery_method: "engine_api", external_reference_id: unique("f") })
    expect(engine.status).toBe(501)
    expect(engine.body.error.code).toBe("NOT_IMPLEMENTED")
    expect((await member(m.member_id)).points_balance).toBe(5000)
    const key = unique("f")
    const body = { member_id: m.member_id, reward_id: reward, nights: 2, hotel: "Lisbon", check_in: "2026-12-01", delivery_method: "voucher", external_reference_id: key }
    const night = await api("POST", "/api/v1/loyalty/redeem-free-night", body)
    expect(night.status, JSON.stringify(night.body)).toBe(200)
    expect(night.body.data).toMatchObject({ nights: 2, points_deducted: 4000, status: "pending", points_balance: 1000, voucher_code: expect.stringMatching(/^FN-[0-9A-F]{12}$/) })
    const replay = await api("POST", "/api/v1/loyalty/redeem-free-night", body)
    expect(replay.body.data).toMatchObject({ redemption_id: night.body.data.redemption_id, points_deducted: 0, idempotent_replay: true })
    const [stock] = await h.sql`SELECT stock_remaining FROM loyalty_rewards WHERE reward_id = ${reward}`
    expect(stock!.stock_remaining).toBe(3)
    const amenity = (await api("POST", "/api/v1/loyalty/rewards", { name: "Spa", type: "amenity", points_cost: 10, auto_fulfill: true })).body.data.reward_id
    expect((await api("POST", "/api/v1/loyalty/redeem-free-night", { ...body, reward_id: amenity, external_reference_id: unique("f") })).status).toBe(409)
    expect(await ledgerAgrees(m.member_id)).toEqual({ balance: 1000, held: 0 })
  })
})

describe("reports", () => {
  it("/reservation-snapshot shows a reservation's holds, refunds and earnings; net points spent = confirmed − restored", async () => {
    const m = await enroll(2000)
    const reservation = unique("RES")
    const hold = async (points: number) =>
      (await api("POST", "/api/v1/loyalty/credit/hold", { member_id: m.member_id, reservation_id: reservation, points, external_reference_id: unique("h") })).body.data.hold_id
    const [a, b] = [await hold(300), await hold(200)]
    await api("POST", "/api/v1/loyalty/credit/confirm", { hold_id: a })
    await api("POST", "/api/v1/loyalty/credit/confirm", { hold_id: b })
    await api("POST", "/api/v1/loyalty/credit/reverse", { hold_id: b })
    await earn({ member_id: m.member_id, amount: 10, currency: "EUR", nights: 1, reservation_id: reservation, status: "pending" })
    const snap = await api("GET", `/api/v1/loyalty/reservation-snapshot?reservation_id=${reservation}`)
    expect(snap.status, JSON.stringify(snap.body)).toBe(200)
    expect(snap.body.data.credit).toMatchObject({ net_points_spent: 300, net_amount: 3 })
    expect(snap.body.data.credit.holds.map((x: { status: string }) => x.status)).toEqual(["confirmed", "reversed"])
    expect(snap.body.data.earn).toMatchObject({ points: 200, transactions: [{ status: "pending", points: 200 }] })
    expect((await api("GET", `/api/v1/loyalty/reservation-snapshot?reservation_id=${unique("NONE")}`)).status).toBe(404)
    expect((await api("GET", "/api/v1/loyalty/reservation-snapshot")).status).toBe(400)
  })

  it("/liability equals the sum of the wallets (active, held, pending) and values it at point_value", async () => {
    const m = await enroll(700)
    await api("POST", "/api/v1/loyalty/credit/hold", { member_id: m.member_id, reservation_id: unique("RES"), points: 200, external_reference_id: unique("h") })
    const res = await api("GET", "/api/v1/loyalty/liability")
    expect(res.status).toBe(200)
    const [sums] = await h.sql`SELECT sum(balance_active)::int AS active, sum(balance_held)::int AS held, sum(balance_pending)::int AS pending
      FROM loyalty_members WHERE tenant_id = ${h.tenant.tenant_id}`
    expect(res.body.data.points).toMatchObject({ active: sums!.active, held: sums!.held, pending: sums!.pending, available: sums!.active - sums!.held })
    expect(res.body.data.wallets).toEqual({ active: sums!.active, held: sums!.held, pending: sums!.pending })
    expect(res.body.data.value).toMatchObject({ point_value: 0.01, currency: "EUR", liability_amount: sums!.active / 100 })
  })

  it("/transactions pages with next_cursor, newest first, without skipping or repeating under concurrent writes", async () => {
    const m = await enroll(10)
    for (let i = 0; i < 6; i++) await earn({ member_id: m.member_id, points: 1 + i })
    const seen: Array<string> = []
    let cursor: string | null = null
    do {
      const page: { body: { data: { transactions: Array<{ transaction_id: string }>; items: unknown; next_cursor: string | null } } } =
        await api("GET", `/api/v1/loyalty/transactions?member_id=${m.member_id}&limit=3${cursor ? `&cursor=${cursor}` : ""}`)
      seen.push(...page.body.data.transactions.map((e) => e.transaction_id))
      // `items` is the old name of the same list, kept one release.
      expect(page.body.data.items).toEqual(page.body.data.transactions)
      cursor = page.body.data.next_cursor
      await earn({ member_id: m.member_id, points: 1 })
    } while (cursor !== null)
    expect(seen).toHaveLength(7)
    expect(new Set(seen).size).toBe(7)
    expect((await api("GET", `/api/v1/loyalty/transactions?member_id=${m.member_id}&cursor=nope`)).status).toBe(400)
  })
})
