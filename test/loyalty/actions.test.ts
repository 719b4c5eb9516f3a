import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { loyaltyHarness } from "./support.ts"

// /actions: the programme's action rules (points when a request sends none) and per-member limits (design note §4.2:
// "2nd app_download with a new R → 409; replay with the same R → 200 replay").

const { h, setUp, tearDown, api, unique, enroll, member, ledgerAgrees } = loyaltyHarness("loyalty-actions")
beforeAll(async () => {
  await setUp()
  const res = await api("PUT", "/api/v1/loyalty/program", {
    currency: "EUR", points_per_unit: 10, points_per_night: 100, expiry_months: 24, point_value: 0.01,
    action_rules: [
      { action_type: "app_download", points: 500, per_member: "once" },
      { action_type: "review", points: 200, per_member: "once_per_scope" },
      { action_type: "newsletter", points: 50, per_member: "unlimited" }
    ]
  })
  expect(res.status, JSON.stringify(res.body)).toBe(200)
  expect(res.body.data.action_rules).toHaveLength(3)
}, 60_000)
afterAll(tearDown)

const act = (body: Record<string, unknown>, key = unique("a")) => api("POST", "/api/v1/loyalty/actions", { external_reference_id: key, ...body })
const claims = async (memberId: string) =>
  (await h.sql`SELECT count(*)::int AS n FROM loyalty_action_claims WHERE member_id = ${memberId}`)[0]!.n as number

describe("/actions rules and per-member limits", () => {
  it("app_download is earned once: the rule's points, a retry replays, a second download with a new key is 409 ACTION_LIMIT_REACHED", async () => {
    const m = await enroll()
    const key = unique("a")
    const first = await act({ member_id: m.member_id, action_type: "app_download" }, key)
    expect(first.status, JSON.stringify(first.body)).toBe(200)
    expect(first.body.data).toMatchObject({ points_awarded: 500, per_member: "once", idempotent_replay: false, points_balance: 500 })
    const replay = await act({ email: m.email, action_type: "app_download" }, key)
    expect(replay.status).toBe(200)
    expect(replay.body.data).toMatchObject({ transaction_id: first.body.data.transaction_id, points_awarded: 0, idempotent_replay: true, points_balance: 500 })
    const second = await act({ member_id: m.member_id, action_type: "app_download" })
    expect(second.status).toBe(409)
    expect(second.body.error).toMatchObject({ code: "ACTION_LIMIT_REACHED", details: { transaction_id: first.body.data.transaction_id } })
    expect(second.body.error.details).toHaveProperty("action_type")
    expect((await member(m.member_id)).points_balance).toBe(500)
    expect(await claims(m.member_id)).toBe(1)
    await ledgerAgrees(m.member_id)
  })

  it("review is earned once per scope_key (per reservation); scope_key is required for it; explicit points win over the rule", async () => {
    const m = await enroll()
    const a = await act({ member_id: m.member_id, action_type: "review", scope_key: "RES-A" })
    expect(a.body.data).toMatchObject({ points_awarded: 200, scope_key: "RES-A" })
    const b = await act({ member_id: m.member_id, action_type: "review", scope_key: "RES-B", points: 300 })
    expect(b.body.data).toMatchObject({ points_awarded: 300 })
    const again = await act({ member_id: m.member_id, action_type: "review", scope_key: "RES-A" })
    expect(again.status).toBe(409)
    expect(again.body.error).toMatchObject({ code: "ACTION_LIMIT_REACHED" })
    expect(again.body.error.details).toHaveProperty("scope_key")
    const noScope = await act({ member_id: m.member_id, action_type: "review" })
    expect(noScope.status).toBe(400)
    expect(noScope.body.error.details).toHaveProperty("scope_key")
    // Another member may review the same reservation.
    const other = await enroll()
    expect((await act({ member_id: other.member_id, action_type: "review", scope_key: "RES-A" })).status).toBe(200)
    expect((await member(m.member_id)).points_balance).toBe(500)
    await ledgerAgrees(m.member_id)
  })

  it("an unlimited rule earns every time; an action type with no rule needs points (400 naming points) and is unlimited", async () => {
    const m = await enroll()
    for (let i = 0; i < 3; i++) expect((await act({ member_id: m.member_id, action_type: "newsletter" })).body.data.points_awarded).toBe(50)
    const none = await act({ member_id: m.member_id, action_type: "birthday" })
    expect(none.status).toBe(400)
    expect(none.body.error.details).toHaveProperty("points")
    for (let i = 0; i < 2; i++) expect((await act({ member_id: m.member_id, action_type: "birthday", points: 10 })).status).toBe(200)
    expect((await member(m.member_id)).points_balance).toBe(170)
    expect(await claims(m.member_id)).toBe(0)
    await ledgerAgrees(m.member_id)
  })

  it("10 concurrent app_downloads of one member with different keys (by email and by member_id): exactly one is awarded", async () => {
    const m = await enroll()
    const answers = await Promise.all(Array.from({ length: 10 }, (_, i) =>
      act({ ...(i % 2 === 0 ? { member_id: m.member_id } : { email: m.email }), action_type: "app_download" })))
    expect(answers.map((r) => r.status).sort()).toEqual([200, ...Array(9).fill(409)])
    expect((await member(m.member_id)).points_balance).toBe(500)
    expect(await claims(m.member_id)).toBe(1)
    await ledgerAgrees(m.member_id)
  })

  it("the database refuses a second claim even if the code tried", async () => {
    const m = await enroll()
    const first = await act({ member_id: m.member_id, action_type: "app_download" })
    await expect(h.sql`INSERT INTO loyalty_action_claims (tenant_id, sandbox, member_id, action_type, scope_key, entry_id)
      VALUES (${h.tenant.tenant_id}, false, ${m.member_id}, 'app_download', '', gen_random_uuid())`).rejects.toThrow(/duplicate key/)
    expect(first.status).toBe(200)
  })

  it("a programme repeating an action type is a 400 naming the rule", async () => {
    const res = await api("PUT", "/api/v1/loyalty/program", {
      currency: "EUR", points_per_unit: 10, point_value: 0.01,
      action_rules: [{ action_type: "survey", points: 1, per_member: "once" }, { action_type: "survey", points: 2, per_member: "once" }]
    })
    expect(res.status).toBe(400)
    expect(res.body.error.details).toHaveProperty("action_rules[1].action_type")
  })
})
