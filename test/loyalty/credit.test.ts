import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { loyaltyHarness } from "./support.ts"

const { h, setUp, tearDown, api, unique, enroll, member, ledgerAgrees, publish } = loyaltyHarness("loyalty-credit")
beforeAll(setUp, 60_000)
afterAll(tearDown)

const hold = (body: Record<string, unknown>, headers?: Record<string, string>) => api("POST", "/api/v1/loyalty/credit/hold", body, headers)
const confirm = (body: Record<string, unknown>) => api("POST", "/api/v1/loyalty/credit/confirm", body)
const release = (body: Record<string, unknown>) => api("POST", "/api/v1/loyalty/credit/release", body)
const reverse = (body: Record<string, unknown>) => api("POST", "/api/v1/loyalty/credit/reverse", body)
const redeem = (memberId: string, points: number) => api("POST", "/api/v1/loyalty/redeem", { member_id: memberId, points, external_reference_id: unique("r") })

describe("credit holds", () => {
  it("hold → active (201), reserving points: available = balance − held, a redemption cannot take them; a retried key answers the same hold (200)", async () => {
    const m = await enroll(1000)
    const key = unique("h")
    const first = await hold({ member_id: m.member_id, reservation_id: unique("RES"), amount: 6.5, currency: "eur", external_reference_id: key })
    expect(first.status, JSON.stringify(first.body)).toBe(201)
    expect(first.body.data).toMatchObject({ status: "active", points_held: 650, amount: 6.5, currency: "EUR", points_balance: 1000, points_available: 350, idempotent_replay: false })
    expect(Date.parse(first.body.data.expires_at) - Date.now()).toBeGreaterThan(25 * 60_000)
    const replay = await hold({ email: m.email, reservation_id: first.body.data.reservation_id, amount: 6.5, currency: "EUR" }, { "Idempotency-Key": key })
    expect(replay.status).toBe(200)
    expect(replay.body.data).toMatchObject({ hold_id: first.body.data.hold_id, idempotent_replay: true, points_available: 350 })
    const other = await hold({ member_id: m.member_id, reservation_id: first.body.data.reservation_id, amount: 7, currency: "EUR", external_reference_id: key })
    expect(other.status).toBe(409)
    expect(other.body.error.code).toBe("IDEMPOTENCY_CONFLICT")
    const tooMuch = await redeem(m.member_id, 351)
    expect(tooMuch.body.error).toMatchObject({ code: "INSUFFICIENT_POINTS", details: { available: 350 } })
    expect((await redeem(m.member_id, 350)).status).toBe(200)
    expect(await member(m.member_id)).toMatchObject({ points_balance: 650, points_available: 0, points_held: 650 })
    const none = await hold({ member_id: m.member_id, reservation_id: unique("RES"), points: 1, external_reference_id: unique("h") })
    expect(none.body.error).toMatchObject({ code: "INSUFFICIENT_POINTS", details: { requested: 1, available: 0 } })
    expect(await ledgerAgrees(m.member_id)).toEqual({ balance: 650, held: 650 })
  })

  it("confirm spends the held points once (a repeat replays 0); release after confirm frees nothing; reverse restores once, lifetime unchanged", async () => {
    const m = await enroll()
    await api("POST", "/api/v1/loyalty/points", { member_id: m.member_id, points: 800, external_reference_id: unique("e") })
    const reservation = unique("RES")
    const placed = (await hold({ member_id: m.member_id, reservation_id: reservation, points: 500, external_reference_id: unique("h") })).body.data
    const done = await confirm({ hold_id: placed.hold_id })
    expect(done.status, JSON.stringify(done.body)).toBe(200)
    expect(done.body.data).toMatchObject({ status: "confirmed", points_deducted: 500, amount: 5, idempotent_replay: false, points_balance: 300, points_held: 0, lifetime_points: 800 })
    const again = await confirm({ hold_id: placed.hold_id })
    expect(again.body.data).toMatchObject({ status: "confirmed", points_deducted: 0, idempotent_replay: true, points_balance: 300 })
    const late = await release({ hold_id: placed.hold_id })
    expect(late.body.data).toMatchObject({ released: true, hold_status: "confirmed", points_released: 0, points_balance: 300 })
    const [r1, r2] = [await reverse({ reservation_id: reservation, reason: "booking cancelled" }), await reverse({ hold_id: placed.hold_id })]
    expect(r1.status, JSON.stringify(r1.body)).toBe(200)
    expect(r1.body.data).toMatchObject({ reversed: true, hold_id: placed.hold_id, points_restored: 500, idempotent_replay: false, points_balance: 800, lifetime_points: 800 })
    expect(r2.body.data).toMatchObject({ reversed: true, refund_id: r1.body.data.refund_id, points_restored: 0, idempotent_replay: true, points_balance: 800 })
    const [refunds] = await h.sql`SELECT count(*)::int AS n FROM loyalty_refunds WHERE hold_id = ${placed.hold_id}`
    expect(refunds!.n).toBe(1)
    expect((await confirm({ hold_id: placed.hold_id })).body.error.code).toBe("HOLD_NOT_ACTIVE")
    // The points went back to the lot they came from.
    const lots = await h.sql`SELECT points_original::int AS o, points_remaining::int AS r FROM loyalty_lots WHERE member_id = ${m.member_id}`
    expect(lots.map((l) => [l.o, l.r])).toEqual([[800, 800]])
    expect(await ledgerAgrees(m.member_id)).toEqual({ balance: 800, held: 0 })
  })

  it("release answers released: true with no hold at all, frees an active hold, and a released hold cannot be confirmed", async () => {
    expect((await release({ reservation_id: unique("NOPE") })).body.data).toEqual({ released: true, hold_id: null, hold_status: "not_found", points_released: 0, holds: [] })
    const m = await enroll(300)
    const key = unique("h")
    const placed = (await hold({ member_id: m.member_id, reservation_id: unique("RES"), points: 200, external_reference_id: key })).body.data
    const freed = await release({ external_reference_id: key })
    expect(freed.body.data).toMatchObject({ released: true, hold_id: placed.hold_id, hold_status: "released", points_released: 200, points_available: 300 })
    expect((await release({ hold_id: placed.hold_id })).body.data).toMatchObject({ released: true, hold_status: "released", points_released: 0 })
    const refused = await confirm({ hold_id: placed.hold_id })
    expect(refused.status).toBe(409)
    expect(refused.body.error.code).toBe("HOLD_NOT_ACTIVE")
    expect((await reverse({ hold_id: placed.hold_id })).body.error.code).toBe("HOLD_NOT_CONFIRMED")
    expect((await confirm({ hold_id: "00000000-0000-4000-8000-000000000000" })).status).toBe(404)
    expect(await ledgerAgrees(m.member_id)).toEqual({ balance: 300, held: 0 })
  })

  it("unsubscribing releases the member's active holds (nothing can confirm them any more); the points stay for a re-enrolment", async () => {
    const m = await enroll(500)
    const a = (await hold({ member_id: m.member_id, reservation_id: unique("RES"), points: 200, external_reference_id: unique("h") })).body.data
    const b = (await hold({ member_id: m.member_id, reservation_id: unique("RES"), points: 100, external_reference_id: unique("h") })).body.data
    expect(await member(m.member_id)).toMatchObject({ points_held: 300, points_available: 200 })
    const out = await api("POST", "/api/v1/loyalty/unsubscribe", { member_id: m.member_id })
    expect(out.status).toBe(200)
    expect(out.body.data).toMatchObject({ status: "unsubscribed", points_balance: 500 })
    const holds = await h.sql`SELECT status FROM loyalty_holds WHERE hold_id IN (${a.hold_id}, ${b.hold_id})`
    expect(holds.map((r) => r.status)).toEqual(["released", "released"])
    expect((await confirm({ hold_id: a.hold_id })).body.error.code).toBe("MEMBER_INACTIVE")
    expect(await ledgerAgrees(m.member_id)).toEqual({ balance: 500, held: 0 })
    expect((await api("POST", "/api/v1/loyalty/enroll", { email: m.email })).body.data).toMatchObject({ reactivated: true, points_available: 500 })
  })

  it("a hold past its expiry is not confirmable and frees its points with no sweep; the next command records the expiry", async () => {
    const m = await enroll(400)
    const placed = (await hold({ member_id: m.member_id, reservation_id: unique("RES"), points: 300, ttl_seconds: 60, external_reference_id: unique("h") })).body.data
    // As if the minute had passed.
    await h.sql`UPDATE loyalty_holds SET expires_at = now() - interval '1 second' WHERE hold_id = ${placed.hold_id}`
    expect(await member(m.member_id)).toMatchObject({ points_balance: 400, points_available: 400, points_held: 0 })
    const refused = await confirm({ hold_id: placed.hold_id })
    expect(refused.status).toBe(409)
    expect(refused.body.error.code).toBe("HOLD_EXPIRED")
    expect((await redeem(m.member_id, 400)).status).toBe(200)
    const [row] = await h.sql`SELECT status FROM loyalty_holds WHERE hold_id = ${placed.hold_id}`
    expect(row!.status).toBe("expired")
    const kinds = (await api("GET", `/api/v1/loyalty/transactions?member_id=${m.member_id}`)).body.data.items.map((e: { kind: string }) => e.kind)
    expect(kinds.slice(0, 2)).toEqual(["redeem", "hold_expire"])
    expect(await ledgerAgrees(m.member_id)).toEqual({ balance: 0, held: 0 })
  })

  it("a confirm sent before the hold's expiry but processed after it is confirmed (the command's time is when it was sent)", async () => {
    const m = await enroll(400)
    const placed = (await hold({ member_id: m.member_id, reservation_id: unique("RES"), points: 300, ttl_seconds: 60, external_reference_id: unique("h") })).body.data
    const sentAt = Date.now()
    // As if the confirm was sent, then waited in a backlog while the hold's minute passed.
    await h.sql`UPDATE loyalty_holds SET expires_at = ${new Date(sentAt + 500)} WHERE hold_id = ${placed.hold_id}`
    await new Promise((r) => setTimeout(r, 1_000))
    const reply = await publish("endHold", { member_id: m.member_id, hold_ids: [placed.hold_id], move: "confirm" }, sentAt)
    expect(reply.exit._tag, JSON.stringify(reply.exit)).toBe("Success")
    const [row] = await h.sql`SELECT status FROM loyalty_holds WHERE hold_id = ${placed.hold_id}`
    expect(row!.status).toBe("confirmed")
    expect(await ledgerAgrees(m.member_id)).toEqual({ balance: 100, held: 0 })
    // Sent after the expiry (now): refused, though nothing recorded the expiry before.
    const late = (await hold({ member_id: m.member_id, reservation_id: unique("RES"), points: 100, ttl_seconds: 60, external_reference_id: unique("h") })).body.data
    await h.sql`UPDATE loyalty_holds SET expires_at = now() - interval '1 second' WHERE hold_id = ${late.hold_id}`
    expect((await confirm({ hold_id: late.hold_id })).body.error.code).toBe("HOLD_EXPIRED")
    expect(await member(m.member_id)).toMatchObject({ points_balance: 100, points_available: 100, points_held: 0 })
  })

  it("a reverse whose lots expired meanwhile restores into a new lot; the reverse of an active hold is 409 HOLD_NOT_CONFIRMED", async () => {
    const m = await enroll(500)
    const reservation = unique("RES")
    const placed = (await hold({ member_id: m.member_id, reservation_id: reservation, points: 500, external_reference_id: unique("h") })).body.data
    expect((await reverse({ reservation_id: reservation })).body.error.code).toBe("HOLD_NOT_CONFIRMED")
    await confirm({ hold_id: placed.hold_id })
    await h.sql`UPDATE loyalty_lots SET expires_at = now() - interval '1 second' WHERE member_id = ${m.member_id}`
    const back = await reverse({ hold_id: placed.hold_id })
    expect(back.body.data).toMatchObject({ points_restored: 500, points_balance: 500 })
    const lots = await h.sql`SELECT points_remaining::int AS r, expires_at > now() + interval '29 days' AS fresh FROM loyalty_lots WHERE member_id = ${m.member_id} AND points_remaining > 0`
    expect(lots.map((l) => [l.r, l.fresh])).toEqual([[500, true]])
    expect(await ledgerAgrees(m.member_id)).toEqual({ balance: 500, held: 0 })
  })

  it("holds, redemptions and confirms racing on one member never overdraw: Σ lots, Σ holds and the ledger agree", async () => {
    const m = await enroll(1000)
    const results = await Promise.all(Array.from({ length: 12 }, (_, i) =>
      i % 2 === 0 ? hold({ member_id: m.member_id, reservation_id: unique("RES"), points: 150, external_reference_id: unique("h") }) : redeem(m.member_id, 150)))
    const ok = results.filter((r) => r.status === 200 || r.status === 201)
    expect(ok).toHaveLength(6)
    for (const r of results.filter((x) => x.status === 409)) expect(r.body.error.code).toBe("INSUFFICIENT_POINTS")
    const holds = results.filter((r) => r.status === 201).map((r) => r.body.data.hold_id as string)
    await Promise.all(holds.map((id, i) => (i % 2 === 0 ? confirm({ hold_id: id }) : release({ hold_id: id }))))
    const state = await ledgerAgrees(m.member_id)
    expect(state.held).toBe(0)
    expect(state.balance).toBe(1000 - 150 * (results.filter((r) => r.status === 200).length + Math.ceil(holds.length / 2)))
  })

  it("the database refuses a hold that breaks the ledger even if the code tried", async () => {
    const m = await enroll(100)
    const placed = (await hold({ member_id: m.member_id, reservation_id: unique("RES"), points: 60, external_reference_id: unique("h") })).body.data
    await expect(h.sql`UPDATE loyalty_lots SET points_held = 200 WHERE member_id = ${m.member_id}`).rejects.toThrow(/check/i)
    await expect(h.sql`UPDATE loyalty_lots SET points_held = 50 WHERE member_id = ${m.member_id}`).rejects.toThrow(/differ/)
    await expect(h.sql`UPDATE loyalty_holds SET status = 'released' WHERE hold_id = ${placed.hold_id}`).rejects.toThrow(/differ/)
    await expect(h.sql`UPDATE loyalty_holds SET status = 'confirmed', confirmed_at = now(), released_at = now() WHERE hold_id = ${placed.hold_id}`).rejects.toThrow(/check/i)
    expect(await ledgerAgrees(m.member_id)).toEqual({ balance: 100, held: 60 })
  })

  it("/credit/quote: the available points as money (floored) and the points an amount takes (ceiled)", async () => {
    const m = await enroll(1234)
    await hold({ member_id: m.member_id, reservation_id: unique("RES"), points: 200, external_reference_id: unique("h") })
    const q = await api("GET", `/api/v1/loyalty/credit/quote?member_id=${m.member_id}&amount=5.555&currency=eur`)
    expect(q.status, JSON.stringify(q.body)).toBe(200)
    expect(q.body.data).toMatchObject({ points_available: 1034, amount_available: 10.34, currency: "EUR", rate: { point_value: 0.01 }, amount: 5.555, points_for_amount: 556, covered: true })
    expect((await api("GET", `/api/v1/loyalty/credit/quote?member_id=${m.member_id}&amount=-1`)).status).toBe(400)
    expect((await api("GET", `/api/v1/loyalty/credit/quote?member_id=${m.member_id}&currency=GBP`)).status).toBe(422)
    expect((await api("GET", "/api/v1/loyalty/credit/quote?member_id=00000000-0000-4000-8000-000000000000")).status).toBe(404)
  })

  it("bad input is a 400 naming the field, before anything is published", async () => {
    const m = await enroll(100)
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ member_id: m.member_id, reservation_id: "R", points: 5 }, "external_reference_id"],
      [{ member_id: m.member_id, reservation_id: "R", points: 5, amount: 1, currency: "EUR", external_reference_id: "k" }, "amount"],
      [{ member_id: m.member_id, reservation_id: "R", amount: 1, external_reference_id: "k" }, "currency"],
      [{ member_id: m.member_id, reservation_id: "R", points: 5, ttl_seconds: 10, external_reference_id: "k" }, "ttl_seconds"]
    ]
    for (const [body, field] of cases) {
      const res = await hold(body)
      expect(res.status, JSON.stringify(res.body)).toBe(400)
      expect(res.body.error.details).toHaveProperty([field])
    }
    expect((await confirm({})).status).toBe(400)
    expect((await release({ hold_id: "00000000-0000-4000-8000-000000000000", reservation_id: "R" })).status).toBe(400)
    const gbp = await hold({ member_id: m.member_id, reservation_id: "R", amount: 1, currency: "GBP", external_reference_id: unique("h") })
    expect(gbp.status).toBe(422)
    expect(await ledgerAgrees(m.member_id)).toEqual({ balance: 100, held: 0 })
  })
})
