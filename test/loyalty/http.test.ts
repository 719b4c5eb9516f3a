import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { createTenant, request, startPlatform, testSql, type RunningPlatform, type TestTenant } from "../support/platform.ts"

let platform: RunningPlatform
let tenant: TestTenant
/** A tenant without a programme. */
let bare: TestTenant
const sql = testSql()

beforeAll(async () => {
  // Several apply lanes: writes of different members race in concurrent transactions.
  platform = await startPlatform("loyalty", { overrides: { applyLanes: 4 } })
  ;[tenant, bare] = await Promise.all([createTenant("loyalty"), createTenant("loyalty-bare")])
  const res = await api("PUT", "/api/v1/loyalty/program", { currency: "eur", points_per_unit: 10, points_per_night: 100, expiry_months: 24, point_value: 0.01 })
  expect(res.status, JSON.stringify(res.body)).toBe(200)
}, 60_000)
afterAll(async () => {
  await platform?.stop()
  await sql.end()
})

let n = 0
const api = (method: string, path: string, body?: unknown, headers?: Record<string, string>, key = tenant.live_key) =>
  request(platform.baseUrl, method, path, { key, ...(body === undefined ? {} : { body }), ...(headers ? { headers } : {}) })
const unique = (prefix: string) => `${prefix}-${Date.now().toString(36)}-${n++}`
const email = () => `${unique("guest")}@gmail.com`
const enroll = async (body: Record<string, unknown> = {}) => {
  const res = await api("POST", "/api/v1/loyalty/enroll", { email: email(), first_name: "Ana", ...body })
  expect(res.status, JSON.stringify(res.body)).toBe(201)
  return res.body.data as { member_id: string; email: string; points_balance: number }
}
const earn = (body: Record<string, unknown>, headers?: Record<string, string>) => api("POST", "/api/v1/loyalty/points", body, headers)
const redeem = (body: Record<string, unknown>, headers?: Record<string, string>) => api("POST", "/api/v1/loyalty/redeem", body, headers)
const member = async (memberId: string) => (await api("GET", `/api/v1/loyalty/member?member_id=${memberId}`)).body.data
const reward = async (body: Record<string, unknown> = {}) => {
  const res = await api("POST", "/api/v1/loyalty/rewards", { name: "Late checkout", type: "amenity", points_cost: 500, auto_fulfill: true, ...body })
  expect(res.status, JSON.stringify(res.body)).toBe(201)
  return res.body.data.reward_id as string
}

/** Σ lots = member balance = newest balance_after, straight from the database. */
const ledgerAgrees = async (memberId: string) => {
  const [held] = await sql`SELECT m.balance_held::int AS held,
      (SELECT coalesce(sum(points_held), 0)::int FROM loyalty_lots WHERE member_id = m.member_id) AS lots_held,
      (SELECT coalesce(sum(points), 0)::int FROM loyalty_holds WHERE member_id = m.member_id AND status = 'active') AS holds,
      (SELECT coalesce(sum(held_points), 0)::int FROM loyalty_entries WHERE member_id = m.member_id) AS ledger_held
    FROM loyalty_members m WHERE member_id = ${memberId}`
  expect([held!.lots_held, held!.holds, held!.ledger_held]).toEqual([held!.held, held!.held, held!.held])
  const [row] = await sql`
    SELECT m.balance_active::int AS balance,
      (SELECT coalesce(sum(points_remaining), 0)::int FROM loyalty_lots WHERE member_id = m.member_id AND status = 'active') AS lots,
      (SELECT coalesce(sum(points), 0)::int FROM loyalty_entries WHERE member_id = m.member_id) AS ledger,
      (SELECT coalesce(sum(pending_points), 0)::int FROM loyalty_entries WHERE member_id = m.member_id) AS pending_ledger,
      (SELECT coalesce(sum(points_remaining), 0)::int FROM loyalty_lots WHERE member_id = m.member_id AND status = 'pending') AS pending_lots,
      m.balance_pending::int AS pending,
      (SELECT balance_after::int FROM loyalty_entries WHERE member_id = m.member_id ORDER BY seq DESC LIMIT 1) AS last_after
    FROM loyalty_members m WHERE member_id = ${memberId}`
  expect(row!.lots).toBe(row!.balance)
  expect(row!.ledger).toBe(row!.balance)
  expect(row!.pending_ledger).toBe(row!.pending)
  expect(row!.pending_lots).toBe(row!.pending)
  if (row!.last_after !== null) expect(row!.last_after).toBe(row!.balance)
  expect(row!.balance).toBeGreaterThanOrEqual(held!.held)
  return row!.balance as number
}

describe("programme set-up", () => {
  it("PUT /program answers the stored programme; a bad field is a 400 naming it", async () => {
    const res = await api("PUT", "/api/v1/loyalty/program", { currency: "EUR", points_per_unit: 10, points_per_night: 100, expiry_months: 24, point_value: 0.01 })
    expect(res.body.data).toMatchObject({ currency: "EUR", points_per_unit: 10, points_per_night: 100, expiry_months: 24, point_value: 0.01 })
    const bad = await api("PUT", "/api/v1/loyalty/program", { currency: "EURO", points_per_unit: -1, point_value: 0.01 })
    expect(bad.status).toBe(400)
    expect(Object.keys(bad.body.error.details)).toEqual(expect.arrayContaining(["currency", "points_per_unit"]))
  })

  it("PUT /tiers replaces the tiers, ranked lowest first; GET answers them; a threshold out of order is a 400 naming it", async () => {
    const tiers = [
      { tier_slug: "blue", tier_name: "Blue", threshold: 0, basis: "qualifying_points" },
      { tier_slug: "gold", tier_name: "Gold", threshold: 5000, basis: "qualifying_points", earn_multiplier: 1.5 }
    ]
    const put = await api("PUT", "/api/v1/loyalty/tiers", tiers)
    expect(put.status, JSON.stringify(put.body)).toBe(200)
    const got = await api("GET", "/api/v1/loyalty/tiers")
    expect(got.body.data).toEqual({
      tiers: [
        { tier_slug: "blue", tier_name: "Blue", rank: 1, threshold: 0, basis: "qualifying_points", window: "lifetime", earn_multiplier: 1 },
        { tier_slug: "gold", tier_name: "Gold", rank: 2, threshold: 5000, basis: "qualifying_points", window: "lifetime", earn_multiplier: 1.5 }
      ],
      next_cursor: null
    })
    expect(put.body.data).toEqual(got.body.data)
    const bad = await api("PUT", "/api/v1/loyalty/tiers", [tiers[1], tiers[0]])
    expect(bad.status).toBe(400)
    expect(bad.body.error.details).toHaveProperty(["[1].threshold"])
    const badBasis = await api("PUT", "/api/v1/loyalty/tiers", [{ ...tiers[0], basis: "spend" }])
    expect(badBasis.status).toBe(400)
    expect(badBasis.body.error.details).toHaveProperty(["[0].basis"])
  })

  it("POST /rewards answers 201 with a reward_id; GET lists it with auto_fulfill and stock_remaining", async () => {
    const id = await reward({ name: "Spa", stock: 3, auto_fulfill: false })
    const list = await api("GET", "/api/v1/loyalty/rewards")
    expect(list.body.data.rewards).toContainEqual(expect.objectContaining({ reward_id: id, name: "Spa", auto_fulfill: false, stock_remaining: 3, points_cost: 500 }))
    const bad = await api("POST", "/api/v1/loyalty/rewards", { name: "X", type: "amenity", points_cost: 0, auto_fulfill: true })
    expect(bad.status).toBe(400)
    expect(bad.body.error.details).toHaveProperty("points_cost")
  })

  it("GET /rewards pages the catalogue in the order rewards were added, each once; a bad limit or cursor is a 400 naming it", async () => {
    const added = [await reward({ name: "A" }), await reward({ name: "B" }), await reward({ name: "C" })]
    const seen: Array<string> = []
    let cursor: string | null = null
    do {
      const page: { status: number; body: { data: { rewards: Array<{ reward_id: string }>; next_cursor: string | null } } } =
        await api("GET", `/api/v1/loyalty/rewards?limit=2${cursor ? `&cursor=${cursor}` : ""}`)
      expect(page.status).toBe(200)
      expect(page.body.data.rewards.length).toBeLessThanOrEqual(2)
      seen.push(...page.body.data.rewards.map((r) => r.reward_id))
      cursor = page.body.data.next_cursor
    } while (cursor !== null)
    expect(new Set(seen).size).toBe(seen.length)
    expect(seen.filter((id) => added.includes(id))).toEqual(added)
    for (const [query, field] of [["limit=101", "limit"], ["limit=0", "limit"], ["cursor=nope", "cursor"]] as const) {
      const refused = await api("GET", `/api/v1/loyalty/rewards?${query}`)
      expect(refused.status).toBe(400)
      expect(refused.body.error.details).toHaveProperty(field)
    }
  })
})

describe("members", () => {
  it("enrols (201), a repeat with another case is the same member (200), re-enrolment without loyalty_balance keeps the points", async () => {
    const address = email()
    const first = await api("POST", "/api/v1/loyalty/enroll", { email: address, loyalty_balance: 1200 })
    expect(first.status).toBe(201)
    expect(first.body.data).toMatchObject({ is_new: true, points_balance: 1200, points_available: 1200, points_pending: 0, lifetime_points: 0 })
    const again = await api("POST", "/api/v1/loyalty/enroll", { email: address.toUpperCase(), last_name: "Gil" })
    expect(again.status).toBe(200)
    expect(again.body.data).toMatchObject({ member_id: first.body.data.member_id, is_new: false, points_balance: 1200 })
    const set = await api("POST", "/api/v1/loyalty/enroll", { email: address, loyalty_balance: 700 })
    expect(set.body.data.points_balance).toBe(700)
    const history = await api("GET", `/api/v1/loyalty/transactions?email=${encodeURIComponent(address)}`)
    expect(history.body.data.items.map((e: { kind: string; points: number }) => [e.kind, e.points])).toEqual([["balance_set", -500], ["opening_balance", 1200]])
    expect(await ledgerAgrees(first.body.data.member_id)).toBe(700)
    expect((await member(first.body.data.member_id)).last_name).toBe("Gil")
  })

  it("two concurrent enrolments of one new email make exactly one member", async () => {
    const address = email()
    const answers = await Promise.all([1, 2, 3].map(() => api("POST", "/api/v1/loyalty/enroll", { email: address, loyalty_balance: 50 })))
    expect(answers.map((a) => a.status).sort()).toEqual([200, 200, 201])
    expect(new Set(answers.map((a) => a.body.data.member_id)).size).toBe(1)
    const [row] = await sql`SELECT count(*)::int AS n FROM loyalty_members WHERE email = ${address}`
    expect(row!.n).toBe(1)
    expect(await ledgerAgrees(answers[0]!.body.data.member_id)).toBe(50)
  })

  it("unsubscribe keeps the points, stops earning and spending (409 MEMBER_INACTIVE), is idempotent; a re-enrolment reactivates", async () => {
    const m = await enroll({ loyalty_balance: 300 })
    const first = await api("POST", "/api/v1/loyalty/unsubscribe", { email: m.email, reason: "moved away" })
    expect(first.status, JSON.stringify(first.body)).toBe(200)
    expect(first.body.data).toMatchObject({ member_id: m.member_id, status: "unsubscribed", already_unsubscribed: false, points_balance: 300 })
    const again = await api("POST", "/api/v1/loyalty/unsubscribe", { member_id: m.member_id })
    expect(again.body.data).toMatchObject({ status: "unsubscribed", already_unsubscribed: true, points_balance: 300 })
    for (const res of [await earn({ member_id: m.member_id, points: 5, external_reference_id: unique("u") }), await redeem({ member_id: m.member_id, points: 5, external_reference_id: unique("u") })]) {
      expect(res.status).toBe(409)
      expect(res.body.error.code).toBe("MEMBER_INACTIVE")
    }
    expect((await api("GET", `/api/v1/loyalty/check?email=${encodeURIComponent(m.email)}`)).body.data).toEqual({ is_member: false, member_summary: null })
    const back = await api("POST", "/api/v1/loyalty/enroll", { email: m.email })
    expect(back.status).toBe(200)
    expect(back.body.data).toMatchObject({ member_id: m.member_id, is_new: false, reactivated: true, points_balance: 300 })
    expect((await redeem({ member_id: m.member_id, points: 5, external_reference_id: unique("u") })).status).toBe(200)
    const unknown = await api("POST", "/api/v1/loyalty/unsubscribe", { email: email() })
    expect(unknown.status).toBe(404)
  })

  it("refuses an invalid email with a 400 naming it", async () => {
    const res = await api("POST", "/api/v1/loyalty/enroll", { email: "not-an-email" })
    expect(res.status).toBe(400)
    expect(res.body.error).toMatchObject({ code: "VALIDATION_ERROR", details: { email: [expect.any(String)] } })
  })

  it("GET /check: a member's summary, or is_member false (200) for a stranger; a missing email is a 400", async () => {
    const m = await enroll({ loyalty_balance: 10 })
    const yes = await api("GET", `/api/v1/loyalty/check?email=${encodeURIComponent(m.email.toUpperCase())}`)
    expect(yes.body.data).toEqual({
      is_member: true,
      member_summary: { member_id: m.member_id, tier_name: "Blue", tier_slug: "blue", points_balance: 10, lifetime_points: 0, joined_at: expect.any(String) }
    })
    const no = await api("GET", `/api/v1/loyalty/check?email=${email()}`)
    expect(no.status).toBe(200)
    expect(no.body.data).toEqual({ is_member: false, member_summary: null })
    const missing = await api("GET", "/api/v1/loyalty/check")
    expect(missing.status).toBe(400)
    expect(missing.body.error.details).toHaveProperty("email")
  })

  it("GET /member by member_id or email; 404 for an unknown one; 400 for both or neither", async () => {
    const m = await enroll()
    expect((await api("GET", `/api/v1/loyalty/member?email=${encodeURIComponent(m.email)}`)).body.data).toMatchObject({
      member_id: m.member_id, points_balance: 0, points_available: 0, points_pending: 0, lifetime_points: 0, tier: { slug: "blue", name: "Blue" }
    })
    const unknown = await api("GET", "/api/v1/loyalty/member?member_id=00000000-0000-4000-8000-000000000000")
    expect(unknown.status).toBe(404)
    expect(unknown.body.error.code).toBe("MEMBER_NOT_FOUND")
    expect((await api("GET", "/api/v1/loyalty/member")).status).toBe(400)
    expect((await api("GET", `/api/v1/loyalty/member?member_id=${m.member_id}&email=${encodeURIComponent(m.email)}`)).status).toBe(400)
    // Another tenant never sees the member.
    expect((await api("GET", `/api/v1/loyalty/member?member_id=${m.member_id}`, undefined, undefined, bare.live_key)).status).toBe(404)
  })
})

describe("earning", () => {
  it("awards explicit points; a retry with the same key replays (points_awarded 0, same transaction_id, balance unchanged)", async () => {
    const m = await enroll()
    const key = unique("earn")
    const first = await earn({ member_id: m.member_id, points: 300, external_reference_id: key })
    expect(first.status, JSON.stringify(first.body)).toBe(200)
    expect(first.body.data).toMatchObject({ status: "confirmed", points_awarded: 300, idempotent_replay: false, points_balance: 300, lifetime_points: 300 })
    expect(first.body.data.expires_at).toEqual(expect.any(String))
    const replay = await earn({ email: m.email, points: 300, external_reference_id: key })
    expect(replay.body.data).toMatchObject({
      transaction_id: first.body.data.transaction_id, points_awarded: 0, points_deducted: 0, idempotent_replay: true, points_balance: 300
    })
    // The Idempotency-Key header is the same key.
    const header = await earn({ member_id: m.member_id, points: 300 }, { "Idempotency-Key": key })
    expect(header.body.data).toMatchObject({ transaction_id: first.body.data.transaction_id, idempotent_replay: true })
    expect(await ledgerAgrees(m.member_id)).toBe(300)
  })

  it("the same key with other points or for another member is a 409 IDEMPOTENCY_CONFLICT", async () => {
    const [a, b] = [await enroll(), await enroll()]
    const key = unique("earn")
    expect((await earn({ member_id: a.member_id, points: 100, external_reference_id: key })).status).toBe(200)
    const otherPoints = await earn({ member_id: a.member_id, points: 101, external_reference_id: key })
    expect(otherPoints.status).toBe(409)
    expect(otherPoints.body.error).toMatchObject({ code: "IDEMPOTENCY_CONFLICT", details: { external_reference_id: [expect.any(String)] } })
    const otherMember = await earn({ member_id: b.member_id, points: 100, external_reference_id: key })
    expect(otherMember.status).toBe(409)
    expect(await ledgerAgrees(b.member_id)).toBe(0)
  })

  it("one key sent for two members at once (two actors): one is applied, the other is a 409, and only one lot exists", async () => {
    const [a, b] = [await enroll(), await enroll()]
    const key = unique("race")
    const answers = await Promise.all([a, b].map((m) => earn({ member_id: m.member_id, points: 40, external_reference_id: key })))
    expect(answers.map((x) => x.status).sort(), JSON.stringify(answers.map((x) => x.body))).toEqual([200, 409])
    expect((await ledgerAgrees(a.member_id)) + (await ledgerAgrees(b.member_id))).toBe(40)
  })

  it("a stay earns by the programme (amount × rate + nights × per-night); pending points are not spendable", async () => {
    const m = await enroll()
    const stay = await earn({ email: m.email, amount: 250.99, currency: "EUR", nights: 2, reservation_id: "R-1", external_reference_id: unique("stay") })
    expect(stay.body.data).toMatchObject({ points_awarded: 2509 + 200, points_balance: 2709, lifetime_points: 2709 })
    const pending = await earn({ member_id: m.member_id, points: 1000, status: "pending", external_reference_id: unique("p") })
    expect(pending.body.data).toMatchObject({ status: "pending", points_balance: 2709, points_pending: 1000, lifetime_points: 2709 })
    const tooMuch = await redeem({ member_id: m.member_id, points: 3000, external_reference_id: unique("r") })
    expect(tooMuch.status).toBe(409)
    expect(tooMuch.body.error).toMatchObject({ code: "INSUFFICIENT_POINTS", details: { requested: 3000, available: 2709 } })
    const [q] = await sql`SELECT qualifying_points::int AS p, qualifying_nights::int AS n FROM loyalty_members WHERE member_id = ${m.member_id}`
    expect(q).toEqual({ p: 2709, n: 2 })
    expect(await ledgerAgrees(m.member_id)).toBe(2709)
  })

  it("a pending earn is confirmed (spendable, lifetime and tier totals) or voided, once; the other move is a 409", async () => {
    const m = await enroll()
    const stay = await earn({ member_id: m.member_id, amount: 100, currency: "EUR", nights: 3, status: "pending", external_reference_id: unique("pe") })
    expect(stay.body.data).toMatchObject({ status: "pending", points_awarded: 1300, points_balance: 0, points_pending: 1300, lifetime_points: 0 })
    const id = stay.body.data.transaction_id
    const confirmed = await api("POST", "/api/v1/loyalty/points/confirm", { transaction_id: id })
    expect(confirmed.status, JSON.stringify(confirmed.body)).toBe(200)
    expect(confirmed.body.data).toMatchObject({ status: "confirmed", points_confirmed: 1300, idempotent_replay: false, points_balance: 1300, points_pending: 0, lifetime_points: 1300 })
    const again = await api("POST", "/api/v1/loyalty/points/confirm", { transaction_id: id })
    expect(again.body.data).toMatchObject({ status: "confirmed", points_confirmed: 0, idempotent_replay: true, lifetime_points: 1300 })
    const voidAfter = await api("POST", "/api/v1/loyalty/points/void", { transaction_id: id })
    expect(voidAfter.status).toBe(409)
    expect(voidAfter.body.error).toMatchObject({ code: "EARN_NOT_PENDING", details: { status: "confirmed" } })
    const [q] = await sql`SELECT qualifying_points::int AS p, qualifying_nights::int AS n FROM loyalty_members WHERE member_id = ${m.member_id}`
    expect(q).toEqual({ p: 1300, n: 3 })

    const bonus = await earn({ member_id: m.member_id, points: 200, status: "pending", external_reference_id: unique("pe") })
    const voided = await api("POST", "/api/v1/loyalty/points/void", { transaction_id: bonus.body.data.transaction_id })
    expect(voided.body.data).toMatchObject({ status: "voided", points_voided: 200, points_pending: 0, points_balance: 1300, lifetime_points: 1300 })
    const confirmAfter = await api("POST", "/api/v1/loyalty/points/confirm", { transaction_id: bonus.body.data.transaction_id })
    expect(confirmAfter.body.error).toMatchObject({ code: "EARN_NOT_PENDING", details: { status: "voided" } })
    const unknown = await api("POST", "/api/v1/loyalty/points/confirm", { transaction_id: "00000000-0000-4000-8000-000000000000" })
    expect(unknown.status).toBe(404)
    expect(unknown.body.error.code).toBe("EARN_NOT_FOUND")
    expect((await api("POST", "/api/v1/loyalty/points/void", { transaction_id: "nope" })).body.error.details).toHaveProperty("transaction_id")
    expect(await ledgerAgrees(m.member_id)).toBe(1300)
  })

  it("refuses: no key (400), points and a stay together (400), another currency (422), no programme (422), unknown member (404)", async () => {
    const m = await enroll()
    const noKey = await earn({ member_id: m.member_id, points: 1 })
    expect(noKey.status).toBe(400)
    expect(noKey.body.error.details).toHaveProperty("external_reference_id")
    const both = await earn({ member_id: m.member_id, points: 1, amount: 10, currency: "EUR", external_reference_id: unique("k") })
    expect(both.status).toBe(400)
    expect(both.body.error.details).toHaveProperty("points")
    const fraction = await earn({ member_id: m.member_id, points: 1.5, external_reference_id: unique("k") })
    expect(fraction.status).toBe(400)
    expect(fraction.body.error.details).toHaveProperty("points")
    const usd = await earn({ member_id: m.member_id, amount: 10, currency: "USD", external_reference_id: unique("k") })
    expect(usd.status).toBe(422)
    expect(usd.body.error).toMatchObject({ code: "CURRENCY_MISMATCH", details: { currency: [expect.any(String)] } })
    const stranger = await earn({ email: email(), points: 1, external_reference_id: unique("k") })
    expect(stranger.status).toBe(404)
    expect(stranger.body.error).toMatchObject({ code: "MEMBER_NOT_FOUND", details: { email: [expect.any(String)] } })
    const bareMember = await api("POST", "/api/v1/loyalty/enroll", { email: email() }, undefined, bare.live_key)
    const noProgram = await api("POST", "/api/v1/loyalty/points", { member_id: bareMember.body.data.member_id, amount: 10, currency: "EUR", external_reference_id: unique("k") }, undefined, bare.live_key)
    expect(noProgram.status).toBe(422)
    expect(noProgram.body.error.code).toBe("PROGRAM_NOT_CONFIGURED")
    expect(await ledgerAgrees(m.member_id)).toBe(0)
  })
})

describe("redeeming", () => {
  it("a reward deducts its cost; status follows auto_fulfill unless sent; a retry deducts nothing and answers the same ids", async () => {
    const m = await enroll({ loyalty_balance: 2000 })
    const auto = await reward({ auto_fulfill: true })
    const manual = await reward({ auto_fulfill: false })
    const key = unique("red")
    const first = await redeem({ email: m.email, reward_id: auto, external_reference_id: key })
    expect(first.status, JSON.stringify(first.body)).toBe(200)
    expect(first.body.data).toMatchObject({ status: "fulfilled", points_deducted: 500, idempotent_replay: false, points_balance: 1500, reward_id: auto })
    const replay = await redeem({ member_id: m.member_id, reward_id: auto }, { "Idempotency-Key": key })
    expect(replay.body.data).toMatchObject({
      redemption_id: first.body.data.redemption_id, transaction_id: first.body.data.transaction_id, points_deducted: 0, idempotent_replay: true, points_balance: 1500
    })
    expect((await redeem({ member_id: m.member_id, reward_id: manual, external_reference_id: unique("red") })).body.data.status).toBe("pending")
    expect((await redeem({ member_id: m.member_id, reward_id: manual, status: "fulfilled", external_reference_id: unique("red") })).body.data.status).toBe("fulfilled")
    const conflict = await redeem({ member_id: m.member_id, points: 10, external_reference_id: key })
    expect(conflict.status).toBe(409)
    expect(conflict.body.error.code).toBe("IDEMPOTENCY_CONFLICT")
    const [rows] = await sql`SELECT count(*)::int AS n FROM loyalty_redemptions WHERE member_id = ${m.member_id}`
    expect(rows!.n).toBe(3)
    expect(await ledgerAgrees(m.member_id)).toBe(500)
  })

  it("a stocked reward is never oversold; an unknown reward is a 404; reward_id and points together a 400", async () => {
    const [a, b] = [await enroll({ loyalty_balance: 1000 }), await enroll({ loyalty_balance: 1000 })]
    const one = await reward({ stock: 1 })
    const answers = await Promise.all([a, b].map((m) => redeem({ member_id: m.member_id, reward_id: one, external_reference_id: unique("s") })))
    expect(answers.map((x) => x.status).sort()).toEqual([200, 409])
    expect(answers.find((x) => x.status === 409)!.body.error.code).toBe("REWARD_UNAVAILABLE")
    const [stock] = await sql`SELECT stock_remaining FROM loyalty_rewards WHERE reward_id = ${one}`
    expect(stock!.stock_remaining).toBe(0)
    const unknown = await redeem({ member_id: a.member_id, reward_id: "00000000-0000-4000-8000-000000000000", external_reference_id: unique("s") })
    expect(unknown.status).toBe(404)
    expect(unknown.body.error).toMatchObject({ code: "REWARD_NOT_FOUND", details: { reward_id: [expect.any(String)] } })
    const both = await redeem({ member_id: a.member_id, reward_id: one, points: 5, external_reference_id: unique("s") })
    expect(both.status).toBe(400)
    expect((await ledgerAgrees(a.member_id)) + (await ledgerAgrees(b.member_id))).toBe(1500)
  })

  it("two concurrent redemptions that together exceed the balance: exactly one succeeds (by email and by member_id)", async () => {
    const m = await enroll({ loyalty_balance: 100 })
    const answers = await Promise.all([
      redeem({ email: m.email, points: 60, external_reference_id: unique("c") }),
      redeem({ member_id: m.member_id, points: 60, external_reference_id: unique("c") })
    ])
    expect(answers.map((x) => x.status).sort()).toEqual([200, 409])
    expect(answers.find((x) => x.status === 409)!.body.error.code).toBe("INSUFFICIENT_POINTS")
    expect(await ledgerAgrees(m.member_id)).toBe(40)
  })

  it("20 concurrent redemptions of 10 against 100 points: exactly 10 succeed, the balance ends at 0", async () => {
    const m = await enroll({ loyalty_balance: 100 })
    const answers = await Promise.all(Array.from({ length: 20 }, () => redeem({ member_id: m.member_id, points: 10, external_reference_id: unique("c") })))
    expect(answers.filter((x) => x.status === 200)).toHaveLength(10)
    expect(answers.filter((x) => x.status === 409)).toHaveLength(10)
    expect(await ledgerAgrees(m.member_id)).toBe(0)
  })
})

describe("redemption batch", () => {
  it("applies each item on its own, in array order per member: failures change nothing, a repeated key replays; 0 or 101 items are a 400", async () => {
    const [a, b] = [await enroll({ loyalty_balance: 100 }), await enroll({ loyalty_balance: 50 })]
    const key = unique("b")
    const res = await api("POST", "/api/v1/loyalty/redemptions/batch", { items: [
      { member_id: a.member_id, points: 60, external_reference_id: key },
      { member_id: a.member_id, points: 60, external_reference_id: unique("b") },
      { email: b.email, points: 50, external_reference_id: unique("b") },
      { member_id: a.member_id, points: 60, external_reference_id: key },
      { member_id: a.member_id, points: "many" }
    ] })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    const results = res.body.data.results
    expect(results.map((r: { status: string }) => r.status)).toEqual(["ok", "error", "ok", "ok", "error"])
    expect(results[0].data).toMatchObject({ points_deducted: 60, idempotent_replay: false, points_balance: 40 })
    expect(results[1].error).toMatchObject({ code: "INSUFFICIENT_POINTS", details: { available: 40 } })
    expect(results[3].data).toMatchObject({ redemption_id: results[0].data.redemption_id, points_deducted: 0, idempotent_replay: true })
    expect(results[4].error).toMatchObject({ code: "VALIDATION_ERROR", details: { points: [expect.any(String)] } })
    expect(res.body.data.summary).toEqual({ ok: 3, error: 2 })
    expect(await ledgerAgrees(a.member_id)).toBe(40)
    expect(await ledgerAgrees(b.member_id)).toBe(0)
    for (const items of [[], Array.from({ length: 101 }, () => ({}))]) {
      const refused = await api("POST", "/api/v1/loyalty/redemptions/batch", { items })
      expect(refused.status).toBe(400)
      expect(refused.body.error.details).toHaveProperty("items")
    }
  })
})

describe("redemption batch at its limit", () => {
  it("100 items with 34 failing: 66 applied, in array order, the failures change nothing; 200 with per-item status", async () => {
    const m = await enroll({ loyalty_balance: 1000 })
    const items = Array.from({ length: 100 }, () => ({ member_id: m.member_id, points: 15, external_reference_id: unique("b100") }))
    const res = await api("POST", "/api/v1/loyalty/redemptions/batch", { items })
    expect(res.status, JSON.stringify(res.body).slice(0, 500)).toBe(200)
    const statuses = res.body.data.results.map((r: { status: string }) => r.status)
    expect(statuses).toEqual([...Array(66).fill("ok"), ...Array(34).fill("error")])
    expect(res.body.data.summary).toEqual({ ok: 66, error: 34 })
    expect(await ledgerAgrees(m.member_id)).toBe(10)
    const [row] = await sql`SELECT count(*)::int AS n FROM loyalty_redemptions WHERE member_id = ${m.member_id}`
    expect(row!.n).toBe(66)
  }, 60_000)
})

describe("apply-discount", () => {
  it("is not idempotent: two identical calls deduct twice; an amount costs ceil(amount / point_value) points", async () => {
    const m = await enroll({ loyalty_balance: 1000 })
    const body = { member_id: m.member_id, points: 100, reference_id: "BOOK-1", reservation_id: "R-9" }
    const [a, b] = [await api("POST", "/api/v1/loyalty/apply-discount", body), await api("POST", "/api/v1/loyalty/apply-discount", body)]
    expect(a.status, JSON.stringify(a.body)).toBe(200)
    expect(a.body.data).toMatchObject({ points_deducted: 100, discount_amount: 1, currency: "EUR", reference_id: "BOOK-1", points_balance: 900 })
    expect(b.body.data).toMatchObject({ points_deducted: 100, points_balance: 800 })
    expect(b.body.data.transaction_id).not.toBe(a.body.data.transaction_id)
    const money = await api("POST", "/api/v1/loyalty/apply-discount", { email: m.email, amount: 2.555, currency: "eur" })
    expect(money.body.data).toMatchObject({ points_deducted: 256, discount_amount: 2.56, points_balance: 544 })
    const tooMuch = await api("POST", "/api/v1/loyalty/apply-discount", { member_id: m.member_id, points: 545 })
    expect(tooMuch.status).toBe(409)
    expect(tooMuch.body.error).toMatchObject({ code: "INSUFFICIENT_POINTS", details: { requested: 545, available: 544 } })
    const usd = await api("POST", "/api/v1/loyalty/apply-discount", { member_id: m.member_id, amount: 1, currency: "USD" })
    expect(usd.status).toBe(422)
    expect((await api("POST", "/api/v1/loyalty/apply-discount", { member_id: m.member_id })).body.error.details).toHaveProperty("points")
    expect(await ledgerAgrees(m.member_id)).toBe(544)
  })

  it("a point_value of 5e-324 (finite, above zero) makes any amount cost more points than exist: 409, nothing dead-lettered", async () => {
    const tiny = await createTenant("loyalty-tiny")
    const as = (method: string, path: string, body?: unknown) => api(method, path, body, undefined, tiny.live_key)
    expect((await as("PUT", "/api/v1/loyalty/program", { currency: "EUR", points_per_unit: 1, point_value: 5e-324 })).status).toBe(200)
    const m = (await as("POST", "/api/v1/loyalty/enroll", { email: email(), loyalty_balance: 1000 })).body.data
    const res = await as("POST", "/api/v1/loyalty/apply-discount", { member_id: m.member_id, amount: 1e12, currency: "EUR" })
    expect(res.status, JSON.stringify(res.body)).toBe(409)
    expect(res.body.error).toMatchObject({ code: "INSUFFICIENT_POINTS", details: { requested: Number.MAX_SAFE_INTEGER, available: 1000 } })
    expect((await sql`SELECT count(*)::int AS n FROM dead_letters WHERE tenant_id = ${tiny.tenant_id}`)[0]!.n).toBe(0)
  })

  it("an amount under one cent is no money: 422 AMOUNT_TOO_SMALL naming amount (a discount and a credit hold), nothing dead-lettered", async () => {
    const m = await enroll({ loyalty_balance: 1000 })
    const discount = await api("POST", "/api/v1/loyalty/apply-discount", { member_id: m.member_id, amount: 0.004, currency: "EUR" })
    expect(discount.status, JSON.stringify(discount.body)).toBe(422)
    expect(discount.body.error).toMatchObject({ code: "AMOUNT_TOO_SMALL", details: { amount: ["must be at least 0.01"] } })
    const hold = await api("POST", "/api/v1/loyalty/credit/hold", { member_id: m.member_id, reservation_id: "R-TINY", amount: 1e-7, currency: "EUR", external_reference_id: unique("tiny") })
    expect(hold.status, JSON.stringify(hold.body)).toBe(422)
    expect(hold.body.error.code).toBe("AMOUNT_TOO_SMALL")
    expect(await ledgerAgrees(m.member_id)).toBe(1000)
    expect((await sql`SELECT count(*)::int AS n FROM dead_letters WHERE tenant_id = ${tenant.tenant_id}`)[0]!.n).toBe(0)
  })
})

describe("conversion", () => {
  it("points to money floored, money to points ceiled, at the programme's point_value; bad input names the field", async () => {
    expect((await api("GET", "/api/v1/loyalty/conversion?points=1234")).body.data).toMatchObject({ points: 1234, amount: 12.34, currency: "EUR", rate: { point_value: 0.01 } })
    expect((await api("GET", "/api/v1/loyalty/conversion?amount=2.555&currency=eur")).body.data).toMatchObject({ points: 256, amount: 2.56 })
    const bad = await api("GET", "/api/v1/loyalty/conversion?points=1.5")
    expect(bad.status).toBe(400)
    expect(bad.body.error.details).toHaveProperty("points")
    expect((await api("GET", "/api/v1/loyalty/conversion?amount=1&currency=USD")).status).toBe(422)
    expect((await api("GET", "/api/v1/loyalty/conversion?points=1", undefined, undefined, bare.live_key)).body.error.code).toBe("PROGRAM_NOT_CONFIGURED")
  })
})

describe("under load", () => {
  it("1,000 mixed earns, redeems, holds, confirms, releases and retries over 50 members from 16 concurrent clients: every balance is what the answers say, Σ lots = Σ ledger = Σ holds, none negative, the liability report = Σ wallets", async () => {
    const members = await Promise.all(Array.from({ length: 50 }, () => enroll({ loyalty_balance: 500 })))
    const expected = new Map(members.map((m) => [m.member_id, { balance: 500, held: 0 }]))
    type Op = { member_id: string; key: string; kind: "earn" | "redeem" | "hold"; points: number }
    const sent: Array<Op> = []
    const holds: Array<{ member_id: string; hold_id: string; points: number; ended: boolean }> = []
    let next = 0
    const rand = (k: number) => Math.floor(Math.random() * k)
    const count = { earn: 0, redeem: 0, hold: 0, confirm: 0, release: 0, retry: 0, refused: 0 }
    const client = async () => {
      while (next < 1000) {
        next++
        const open = holds.filter((x) => !x.ended)
        if (open.length > 0 && rand(5) === 0) {
          // End a hold: confirm spends its points, release frees them; the same end twice is no double move.
          const target = open[rand(open.length)]!
          target.ended = true
          const move = rand(2) === 0 ? "confirm" : "release"
          const res = await api("POST", `/api/v1/loyalty/credit/${move}`, { hold_id: target.hold_id })
          expect(res.status, JSON.stringify(res.body)).toBe(200)
          const e = expected.get(target.member_id)!
          expected.set(target.member_id, { balance: e.balance - (move === "confirm" ? target.points : 0), held: e.held - target.points })
          count[move]++
          continue
        }
        const retry = sent.length > 0 && rand(10) === 0 ? sent[rand(sent.length)]! : undefined
        const kinds = ["earn", "redeem", "hold"] as const
        const op: Op = retry ?? { member_id: members[rand(50)]!.member_id, key: unique("load"), kind: kinds[rand(3)]!, points: 1 + rand(150) }
        if (retry === undefined) sent.push(op)
        else count.retry++
        const res = op.kind === "earn" ? await earn({ member_id: op.member_id, points: op.points, external_reference_id: op.key })
          : op.kind === "redeem" ? await redeem({ member_id: op.member_id, points: op.points, external_reference_id: op.key })
          : await api("POST", "/api/v1/loyalty/credit/hold", { member_id: op.member_id, reservation_id: `RES-${op.key}`, points: op.points, external_reference_id: op.key })
        if ((res.status === 200 || res.status === 201) && !res.body.data.idempotent_replay) {
          const e = expected.get(op.member_id)!
          if (op.kind === "hold") {
            holds.push({ member_id: op.member_id, hold_id: res.body.data.hold_id, points: op.points, ended: false })
            expected.set(op.member_id, { ...e, held: e.held + op.points })
          } else expected.set(op.member_id, { ...e, balance: e.balance + (op.kind === "earn" ? op.points : -op.points) })
          count[op.kind]++
        } else if (res.status === 200) {
          expect(res.body.data.points_awarded ?? res.body.data.points_deducted ?? 0).toBe(0)
        } else {
          expect(res.status, JSON.stringify(res.body)).toBe(409)
          expect(res.body.error.code).toBe("INSUFFICIENT_POINTS")
          count.refused++
        }
      }
    }
    const started = Date.now()
    await Promise.all(Array.from({ length: 16 }, client))
    const took = Date.now() - started
    for (const m of members) {
      const balance = await ledgerAgrees(m.member_id)
      const [row] = await sql`SELECT balance_held::int AS held FROM loyalty_members WHERE member_id = ${m.member_id}`
      expect({ balance, held: row!.held }).toEqual(expected.get(m.member_id))
    }
    // The liability report is the sum of the wallets (the other tests of this file add theirs to both sides).
    const liability = (await api("GET", "/api/v1/loyalty/liability")).body.data
    const [sums] = await sql`SELECT sum(balance_active)::int AS active, sum(balance_held)::int AS held, sum(balance_pending)::int AS pending
      FROM loyalty_members WHERE tenant_id = ${tenant.tenant_id} AND sandbox = false`
    expect(liability.points).toEqual({ active: sums!.active, held: sums!.held, pending: sums!.pending, available: sums!.active - sums!.held })
    const mine = [...expected.values()].reduce((s, e) => ({ balance: s.balance + e.balance, held: s.held + e.held }), { balance: 0, held: 0 })
    expect(liability.points.held).toBeGreaterThanOrEqual(mine.held)
    console.log(JSON.stringify({ loyalty_mixed_1000: { ms: took, writes_per_s: Math.round(1000 / (took / 1000)), ...count, held_now: mine.held } }))
  }, 120_000)
})

describe("ledger", () => {
  it("GET /transactions: newest first, every movement with balance_after; the newest equals the balance", async () => {
    const m = await enroll({ loyalty_balance: 100 })
    await earn({ member_id: m.member_id, points: 50, external_reference_id: unique("t"), reason: "survey" })
    await redeem({ member_id: m.member_id, points: 30, external_reference_id: unique("t") })
    const res = await api("GET", `/api/v1/loyalty/transactions?member_id=${m.member_id}`)
    expect(res.body.data.items.map((e: Record<string, unknown>) => [e.kind, e.points, e.balance_after])).toEqual([
      ["redeem", -30, 120], ["earn", 50, 150], ["opening_balance", 100, 100]
    ])
    expect(res.body.data.items[1].reason).toBe("survey")
    expect(res.body.data.items[0].redemption_id).toEqual(expect.any(String))
    expect((await api("GET", `/api/v1/loyalty/transactions?member_id=${m.member_id}&limit=1`)).body.data.items).toHaveLength(1)
    expect((await api("GET", `/api/v1/loyalty/transactions?member_id=${m.member_id}&limit=0`)).status).toBe(400)
  })

  it("a lot past its expiry is neither shown nor spent; the next command records its expiry", async () => {
    const m = await enroll()
    await earn({ member_id: m.member_id, points: 70, external_reference_id: unique("x") })
    await earn({ member_id: m.member_id, points: 30, external_reference_id: unique("x") })
    // The first lot reaches its expiry (as if 24 months had passed).
    await sql`UPDATE loyalty_lots SET expires_at = now() - interval '1 second' WHERE member_id = ${m.member_id} AND points_original = 70`
    expect((await member(m.member_id)).points_balance).toBe(30)
    const refused = await redeem({ member_id: m.member_id, points: 40, external_reference_id: unique("x") })
    expect(refused.body.error).toMatchObject({ code: "INSUFFICIENT_POINTS", details: { available: 30 } })
    const spent = await redeem({ member_id: m.member_id, points: 30, external_reference_id: unique("x") })
    expect(spent.body.data.points_balance).toBe(0)
    const kinds = (await api("GET", `/api/v1/loyalty/transactions?member_id=${m.member_id}`)).body.data.items.map((e: Record<string, unknown>) => [e.kind, e.points, e.balance_after])
    expect(kinds.slice(0, 2)).toEqual([["redeem", -30, 0], ["expire", -70, 30]])
    expect(await ledgerAgrees(m.member_id)).toBe(0)
  })

  it("the database refuses what would break the ledger even if the code tried: a negative lot, a balance apart from its lots, an edited entry", async () => {
    const m = await enroll({ loyalty_balance: 100 })
    await expect(sql`UPDATE loyalty_lots SET points_remaining = -1 WHERE member_id = ${m.member_id}`).rejects.toThrow(/check/i)
    await expect(sql`UPDATE loyalty_members SET balance_active = 200 WHERE member_id = ${m.member_id}`).rejects.toThrow(/differ from its lots/)
    await expect(sql`UPDATE loyalty_lots SET points_remaining = 40 WHERE member_id = ${m.member_id}`).rejects.toThrow(/differ from its lots/)
    await expect(sql`UPDATE loyalty_entries SET points = 1 WHERE member_id = ${m.member_id}`).rejects.toThrow(/append-only/)
    await expect(sql`DELETE FROM loyalty_entries WHERE member_id = ${m.member_id}`).rejects.toThrow(/append-only/)
    const [entry] = await sql`SELECT tenant_id, sandbox, op, external_reference_id FROM loyalty_entries WHERE member_id = ${m.member_id} LIMIT 1`
    expect(entry!.op).toBeNull()
    expect(await ledgerAgrees(m.member_id)).toBe(100)
  })
})
