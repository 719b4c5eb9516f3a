import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { loyaltyHarness } from "./support.ts"

const { h, setUp, tearDown, api, unique, enroll, member, ledgerAgrees } = loyaltyHarness("loyalty-households")
beforeAll(setUp, 60_000)
afterAll(tearDown)

const households = (body: Record<string, unknown>) => api("POST", "/api/v1/loyalty/households", body)
const pool = async (householdId: string, expected: number) => {
  const deadline = Date.now() + 10_000
  for (;;) {
    const res = await api("GET", `/api/v1/loyalty/households?household_id=${householdId}`)
    if (res.body.data.pooled_balance === expected || Date.now() > deadline) return res.body.data
    await new Promise((r) => setTimeout(r, 100))
  }
}

describe("households", () => {
  it("create, add members, contribute (lots keep their expiry, a retry moves nothing more), redeem from the pool, conservation", async () => {
    const [owner, other, third] = [await enroll(1000), await enroll(500), await enroll(100)]
    const created = await households({ action: "create", member_id: owner.member_id, name: "The Gils" })
    expect(created.status, JSON.stringify(created.body)).toBe(200)
    const id = created.body.data.household_id as string
    expect(created.body.data).toMatchObject({ name: "The Gils", owner_member_id: owner.member_id, members: [{ member_id: owner.member_id, role: "owner" }], pooled_balance: 0 })
    expect((await households({ action: "add_member", household_id: id, email: other.email })).body.data).toMatchObject({ changed: true })
    expect((await households({ action: "add_member", household_id: id, member_id: other.member_id })).body.data).toMatchObject({ changed: false })
    // A member is in at most one household.
    const taken = await households({ action: "create", member_id: other.member_id, name: "Elsewhere" })
    expect(taken.body.error.code).toBe("HOUSEHOLD_MEMBER_TAKEN")
    const key = unique("c")
    const c1 = await households({ action: "contribute", household_id: id, member_id: owner.member_id, points: 600, external_reference_id: key })
    expect(c1.body.data).toMatchObject({ points: 600, idempotent_replay: false, points_balance: 400, transfer_status: "accepted" })
    const again = await households({ action: "contribute", household_id: id, member_id: owner.member_id, points: 600, external_reference_id: key })
    expect(again.body.data).toMatchObject({ transfer_id: c1.body.data.transfer_id, points: 0, idempotent_replay: true, points_balance: 400 })
    await households({ action: "contribute", household_id: id, member_id: other.member_id, points: 500, external_reference_id: unique("c") })
    expect(await pool(id, 1100)).toMatchObject({ pooled_balance: 1100, pooled_available: 1100 })
    // The contributed lots keep the member's expiry (a transfer never extends it).
    const [expiries] = await h.sql`SELECT count(DISTINCT l.expires_at)::int AS n,
        bool_and(l.expires_at IN (SELECT expires_at FROM loyalty_lots WHERE member_id IN (${owner.member_id}, ${other.member_id}))) AS same
      FROM loyalty_lots l WHERE l.member_id = ${id}`
    expect(expiries!.same).toBe(true)
    // Not a member of this household: refused, nothing moved.
    const outsider = await households({ action: "contribute", household_id: id, member_id: third.member_id, points: 10, external_reference_id: unique("c") })
    expect(outsider.body.error.code).toBe("NOT_HOUSEHOLD_MEMBER")
    const spent = await households({ action: "redeem", household_id: id, member_id: other.member_id, points: 1000, external_reference_id: unique("r") })
    expect(spent.status, JSON.stringify(spent.body)).toBe(200)
    expect(spent.body.data).toMatchObject({ points_deducted: 1000, pooled_balance: 100 })
    const tooMuch = await households({ action: "redeem", household_id: id, member_id: owner.member_id, points: 101, external_reference_id: unique("r") })
    expect(tooMuch.body.error.code).toBe("INSUFFICIENT_POINTS")
    expect((await households({ action: "redeem", household_id: id, member_id: third.member_id, points: 1, external_reference_id: unique("r") })).body.error.code).toBe("NOT_HOUSEHOLD_MEMBER")
    // Conservation: what left the members is in the pool or was redeemed from it; every wallet's ledger adds up.
    expect((await ledgerAgrees(owner.member_id)).balance + (await ledgerAgrees(other.member_id)).balance + (await ledgerAgrees(id)).balance + 1000).toBe(1500)
    expect((await api("GET", `/api/v1/loyalty/households?member_id=${other.member_id}`)).body.data.household_id).toBe(id)
    expect((await households({ action: "remove_member", household_id: id, member_id: owner.member_id })).body.error.code).toBe("HOUSEHOLD_LIMIT")
    expect((await households({ action: "remove_member", household_id: id, member_id: other.member_id })).body.data).toMatchObject({ changed: true })
    expect((await api("GET", `/api/v1/loyalty/households?member_id=${other.member_id}`)).status).toBe(404)
    // The pool is no member: the member routes do not know its id.
    expect((await api("GET", `/api/v1/loyalty/member?member_id=${id}`)).status).toBe(404)
    expect(await member(owner.member_id)).toMatchObject({ points_balance: 400, lifetime_points: 0 })
  })

  it("concurrent contributions and member redemptions never overdraw; at quiescence Σ members + pool is conserved", async () => {
    const owner = await enroll(1000)
    const id = (await households({ action: "create", member_id: owner.member_id, name: "Race" })).body.data.household_id as string
    const results = await Promise.all(Array.from({ length: 10 }, (_, i) =>
      i % 2 === 0
        ? households({ action: "contribute", household_id: id, member_id: owner.member_id, points: 150, external_reference_id: unique("c") })
        : api("POST", "/api/v1/loyalty/redeem", { member_id: owner.member_id, points: 150, external_reference_id: unique("r") })))
    const ok = results.filter((r) => r.status === 200)
    for (const r of results.filter((x) => x.status !== 200)) expect(r.body.error.code).toBe("INSUFFICIENT_POINTS")
    const contributed = results.filter((r, i) => i % 2 === 0 && r.status === 200).length * 150
    const redeemed = results.filter((r, i) => i % 2 === 1 && r.status === 200).length * 150
    expect(ok.length).toBe(6)
    await pool(id, contributed)
    expect((await ledgerAgrees(owner.member_id)).balance).toBe(1000 - contributed - redeemed)
    expect((await ledgerAgrees(id)).balance).toBe(contributed)
  })

  it("bad input names the field", async () => {
    expect((await households({ action: "create", email: "x@gmail.com" })).body.error.details).toHaveProperty("name")
    expect((await households({ action: "contribute", member_id: "00000000-0000-4000-8000-000000000000", points: 1 })).body.error.details).toHaveProperty("household_id")
    expect((await households({ action: "dance" })).status).toBe(400)
    expect((await households({ action: "add_member", household_id: "00000000-0000-4000-8000-000000000000", email: "x@gmail.com" })).status).toBe(404)
  })
})
