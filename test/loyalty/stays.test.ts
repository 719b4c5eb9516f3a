import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { phone, reservation } from "../support/fixtures.ts"
import { loyaltyHarness } from "./support.ts"

const { h, setUp, tearDown, api, unique, enroll, member, ledgerAgrees } = loyaltyHarness("loyalty-stays")
beforeAll(setUp, 60_000)
afterAll(tearDown)

const stay = (email: string, overrides: Record<string, unknown> = {}) => reservation({ hotel_code: h.tenant.hotel_code }, {
  check_in: "2026-11-01", check_out: "2026-11-03", amount: 200, currency: "EUR", status: "checked_out",
  guests: [{ first_name: "Ana", last_name: "Gil", phone: phone(Math.floor(Math.random() * 80_000_000)), email, is_holder: true }], ...overrides
})
const upsert = async (body: Record<string, unknown>) => {
  const res = await api("POST", "/api/v1/reservations", body)
  expect(res.status, JSON.stringify(res.body)).toBeLessThan(300)
}
/** Waits until the member's balances match (the earning arrives through the outbox, after the reservation's commit). */
const eventually = async (memberId: string, expected: Record<string, number>) => {
  const deadline = Date.now() + 10_000
  for (;;) {
    const m = await member(memberId)
    const ok = Object.entries(expected).every(([k, v]) => m[k] === v)
    if (ok) return m
    if (Date.now() > deadline) expect(m).toMatchObject(expected)
    await new Promise((r) => setTimeout(r, 100))
  }
}

describe("automatic earning from stays", () => {
  it("a checked-out reservation earns for its holder's membership once; a later cancellation reverses it; lifetime and qualifying follow", async () => {
    const m = await enroll()
    const body = stay(m.email.toUpperCase(), { status: "checked_in" })
    await upsert(body)
    await upsert({ ...body, status: "checked_out" })
    // 200 EUR × 10 + 2 nights × 100.
    await eventually(m.member_id, { points_balance: 2200, lifetime_points: 2200 })
    await upsert({ ...body, status: "checked_out", comments: "late checkout" })
    await new Promise((r) => setTimeout(r, 500))
    const items = (await api("GET", `/api/v1/loyalty/transactions?member_id=${m.member_id}`)).body.data.items
    expect(items.filter((e: { kind: string }) => e.kind === "earn")).toMatchObject([{ points: 2200, reservation_id: body.reservation_id, external_reference_id: `res:${body.reservation_id}` }])
    expect((await member(m.member_id)).tier_progress).toMatchObject({ qualifying_points: 2200, qualifying_nights: 2 })
    await upsert({ ...body, status: "cancelled" })
    await eventually(m.member_id, { points_balance: 0, lifetime_points: 0 })
    expect((await member(m.member_id)).tier_progress).toMatchObject({ qualifying_points: 0, qualifying_nights: 0 })
    expect((await ledgerAgrees(m.member_id)).balance).toBe(0)
  })

  it("deduplicated with the API path: a stay already earned through /points (naming the reservation) earns nothing more", async () => {
    const m = await enroll()
    const body = stay(m.email, { status: "confirmed" })
    await upsert(body)
    const api1 = await api("POST", "/api/v1/loyalty/points", { member_id: m.member_id, amount: 200, currency: "EUR", nights: 2, reservation_id: body.reservation_id, external_reference_id: unique("pms") })
    expect(api1.body.data.points_awarded).toBe(2200)
    await upsert({ ...body, status: "checked_out" })
    await new Promise((r) => setTimeout(r, 800))
    expect((await member(m.member_id)).points_balance).toBe(2200)
    // And the other way round: the automatic key replays for a client that sends it.
    const other = stay(m.email)
    await upsert(other)
    await eventually(m.member_id, { points_balance: 4400 })
    const replay = await api("POST", "/api/v1/loyalty/points", {
      member_id: m.member_id, amount: 200, currency: "EUR", nights: 2, reservation_id: other.reservation_id, check_in: "2026-11-01", check_out: "2026-11-03",
      hotel: (await h.sql`SELECT hotel_id FROM reservations WHERE external_id = ${other.reservation_id}`)[0]!.hotel_id, external_reference_id: `res:${other.reservation_id}`
    })
    expect(replay.body.data).toMatchObject({ idempotent_replay: true, points_awarded: 0 })
    // A no-show reverses too.
    await upsert({ ...other, status: "no_show" })
    await eventually(m.member_id, { points_balance: 2200 })
    expect((await ledgerAgrees(m.member_id)).balance).toBe(2200)
  })

  it("with pending_days, a stay's earning is pending, then confirmed by itself once the days passed: reads count it at once, the next command records it", async () => {
    expect((await api("PUT", "/api/v1/loyalty/program", { currency: "EUR", points_per_unit: 10, points_per_night: 100, expiry_months: 24, pending_days: 14, point_value: 0.01 })).status).toBe(200)
    try {
      const m = await enroll()
      const body = stay(m.email)
      await upsert(body)
      await eventually(m.member_id, { points_pending: 2200, points_balance: 0, lifetime_points: 0 })
      const [lot] = await h.sql`SELECT available_at > now() + interval '13 days' AS later FROM loyalty_lots WHERE member_id = ${m.member_id} AND status = 'pending'`
      expect(lot!.later).toBe(true)
      // As if the 14 days had passed.
      await h.sql`UPDATE loyalty_lots SET available_at = now() - interval '1 second' WHERE member_id = ${m.member_id} AND status = 'pending'`
      expect(await member(m.member_id)).toMatchObject({ points_pending: 0, points_balance: 2200, lifetime_points: 2200 })
      const spent = await api("POST", "/api/v1/loyalty/redeem", { member_id: m.member_id, points: 200, external_reference_id: unique("r") })
      expect(spent.body.data).toMatchObject({ points_balance: 2000, points_pending: 0, lifetime_points: 2200 })
      const kinds = (await api("GET", `/api/v1/loyalty/transactions?member_id=${m.member_id}`)).body.data.items.map((e: { kind: string }) => e.kind)
      expect(kinds.slice(0, 2)).toEqual(["redeem", "confirm"])
      expect((await member(m.member_id)).tier_progress).toMatchObject({ qualifying_points: 2200, qualifying_nights: 2 })
      expect((await ledgerAgrees(m.member_id)).balance).toBe(2000)
    } finally {
      await api("PUT", "/api/v1/loyalty/program", { currency: "EUR", points_per_unit: 10, points_per_night: 100, expiry_months: 24, point_value: 0.01 })
    }
  })

  it("a holder who is not a member earns nothing, and nothing is sent to the loyalty actor", async () => {
    const body = stay(`${unique("stranger")}@gmail.com`)
    await upsert(body)
    await new Promise((r) => setTimeout(r, 300))
    const [row] = await h.sql`SELECT count(*)::int AS n FROM loyalty_entries WHERE reservation_id = ${body.reservation_id}`
    expect(row!.n).toBe(0)
  })
})
