import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import fc from "fast-check"
import { loyaltyHarness } from "./support.ts"

// Random command sequences driven through HTTP against a running platform (real NATS and PostgreSQL), checked against
// a model of each wallet after every command (design note §6): the answer's outcome is the one the model predicts, the
// balances are the model's, Σ lots = Σ ledger = balance, none negative; at the end the liability report = Σ wallets.

const { h, setUp, tearDown, api, unique, enroll, member, ledgerAgrees } = loyaltyHarness("loyalty-sequences")
beforeAll(setUp, 60_000)
afterAll(tearDown)

type Wallet = { active: number; held: number; pending: number; lifetime: number }
type Earn = { member: number; transaction_id: string; points: number; status: "pending" | "confirmed" | "voided" | "reversed" }
type Hold = { member: number; hold_id: string; points: number; status: "active" | "confirmed" | "released" | "reversed" }
type Keyed = { path: string; body: Record<string, unknown> }

const Cmd = fc.oneof(
  fc.record({ k: fc.constant("earn" as const), m: fc.nat(2), points: fc.integer({ min: 1, max: 300 }), pending: fc.boolean() }),
  fc.record({ k: fc.constant("resolve" as const), i: fc.nat(), move: fc.constantFrom("confirm" as const, "void" as const), part: fc.option(fc.integer({ min: 1, max: 300 }), { nil: undefined }) }),
  fc.record({ k: fc.constant("reverse" as const), i: fc.nat() }),
  fc.record({ k: fc.constant("redeem" as const), m: fc.nat(2), points: fc.integer({ min: 1, max: 400 }) }),
  fc.record({ k: fc.constant("discount" as const), m: fc.nat(2), points: fc.integer({ min: 1, max: 200 }) }),
  fc.record({ k: fc.constant("hold" as const), m: fc.nat(2), points: fc.integer({ min: 1, max: 300 }) }),
  fc.record({ k: fc.constant("end" as const), i: fc.nat(), move: fc.constantFrom("confirm" as const, "release" as const, "reverse" as const) }),
  fc.record({ k: fc.constant("retry" as const), i: fc.nat() }),
  fc.record({ k: fc.constant("action" as const), m: fc.nat(2), type: fc.constantFrom("app_download", "review", "newsletter"), scope: fc.constantFrom("R1", "R2") })
)

const runSequence = async (cmds: ReadonlyArray<typeof Cmd extends fc.Arbitrary<infer C> ? C : never>) => {
  const members = await Promise.all([0, 1, 2].map(() => enroll(200)))
  const w: Array<Wallet> = members.map(() => ({ active: 200, held: 0, pending: 0, lifetime: 0 }))
  const earns: Array<Earn> = []
  const holds: Array<Hold> = []
  const keyed: Array<Keyed> = []
  const claims = new Set<string>()
  const ok = (status: number) => status === 200 || status === 201
  const send = async (path: string, body: Record<string, unknown>, keyedToo = false) => {
    if (keyedToo) keyed.push({ path, body })
    return api("POST", path, body)
  }
  for (const c of cmds) {
    let touched: number | undefined
    if (c.k === "earn") {
      const res = await send("/api/v1/loyalty/points", { member_id: members[c.m]!.member_id, points: c.points, status: c.pending ? "pending" : "confirmed", external_reference_id: unique("e") }, true)
      expect(ok(res.status), JSON.stringify(res.body)).toBe(true)
      earns.push({ member: c.m, transaction_id: res.body.data.transaction_id, points: c.points, status: c.pending ? "pending" : "confirmed" })
      if (c.pending) w[c.m]!.pending += c.points
      else Object.assign(w[c.m]!, { active: w[c.m]!.active + c.points, lifetime: w[c.m]!.lifetime + c.points })
      touched = c.m
    } else if (c.k === "resolve" && earns.length > 0) {
      const e = earns[c.i % earns.length]!
      const part = c.move === "confirm" ? c.part : undefined
      const res = await send(`/api/v1/loyalty/points/${c.move}`, { transaction_id: e.transaction_id, ...(part !== undefined ? { points: part } : {}) })
      const done = c.move === "confirm" ? "confirmed" : "voided"
      if (e.status === "pending" && part !== undefined && part > e.points) {
        expect(res.status, JSON.stringify(res.body)).toBe(409)
        expect(res.body.error.code).toBe("POINTS_EXCEED_PENDING")
      } else if (e.status === "pending") {
        expect(res.status, JSON.stringify(res.body)).toBe(200)
        w[e.member]!.pending -= e.points
        // A partial confirm makes the earning what was confirmed (the rest voided): a later reversal takes that back.
        const kept = c.move === "confirm" ? part ?? e.points : 0
        expect(res.body.data).toMatchObject({ points_confirmed: kept, points_voided: e.points - kept })
        if (c.move === "confirm") Object.assign(w[e.member]!, { active: w[e.member]!.active + kept, lifetime: w[e.member]!.lifetime + kept })
        e.points = kept
        e.status = done
      } else if (e.status === done) {
        expect(res.body.data).toMatchObject({ idempotent_replay: true })
      } else {
        expect(res.status, JSON.stringify(res.body)).toBe(409)
        expect(res.body.error.code).toBe("EARN_NOT_PENDING")
      }
      touched = e.member
    } else if (c.k === "reverse" && earns.length > 0) {
      const e = earns[c.i % earns.length]!
      const res = await send("/api/v1/loyalty/reverse", { transaction_id: e.transaction_id, reason: "cancellation" })
      expect(res.status, JSON.stringify(res.body)).toBe(200)
      if (e.status === "pending") { w[e.member]!.pending -= e.points; e.status = "voided" }
      else if (e.status === "confirmed") {
        // Never below zero: taken = min(earned, spendable), the rest reported unrecovered; the earning is cancelled
        // whole, so lifetime drops by all of it (§6.3: lifetime = Σ confirmed earns − Σ reversed earns).
        const taken = res.body.data.points_reversed as number
        expect(taken).toBe(Math.min(e.points, w[e.member]!.active - w[e.member]!.held))
        expect(res.body.data.points_unrecovered).toBe(e.points - taken)
        Object.assign(w[e.member]!, { active: w[e.member]!.active - taken, lifetime: w[e.member]!.lifetime - e.points })
        e.status = "reversed"
      } else expect(res.body.data.points_reversed).toBe(0)
      touched = e.member
    } else if (c.k === "redeem" || c.k === "discount" || c.k === "hold") {
      const x = w[c.m]!
      const body = { member_id: members[c.m]!.member_id, points: c.points, ...(c.k === "discount" ? {} : { external_reference_id: unique(c.k) }) }
      const path = c.k === "redeem" ? "/api/v1/loyalty/redeem" : c.k === "discount" ? "/api/v1/loyalty/apply-discount" : "/api/v1/loyalty/credit/hold"
      const res = await send(path, c.k === "hold" ? { ...body, reservation_id: unique("RES") } : body, c.k !== "discount")
      if (c.points <= x.active - x.held) {
        expect(ok(res.status), JSON.stringify(res.body)).toBe(true)
        if (c.k === "hold") { x.held += c.points; holds.push({ member: c.m, hold_id: res.body.data.hold_id, points: c.points, status: "active" }) }
        else x.active -= c.points
      } else {
        expect(res.status, JSON.stringify(res.body)).toBe(409)
        expect(res.body.error).toMatchObject({ code: "INSUFFICIENT_POINTS", details: { available: x.active - x.held } })
        if (c.k !== "discount") keyed.pop() // a refused key applies nothing; its retry would be a fresh attempt
      }
      touched = c.m
    } else if (c.k === "end" && holds.length > 0) {
      const hd = holds[c.i % holds.length]!
      const x = w[hd.member]!
      const res = await send(`/api/v1/loyalty/credit/${c.move}`, { hold_id: hd.hold_id })
      if (c.move === "release") {
        expect(res.status).toBe(200)
        expect(res.body.data.points_released).toBe(hd.status === "active" ? hd.points : 0)
        if (hd.status === "active") { x.held -= hd.points; hd.status = "released" }
      } else if (c.move === "confirm") {
        if (hd.status === "active") { expect(res.status, JSON.stringify(res.body)).toBe(200); x.held -= hd.points; x.active -= hd.points; hd.status = "confirmed" }
        else if (hd.status === "confirmed") expect(res.body.data).toMatchObject({ idempotent_replay: true, points_deducted: 0 })
        else expect(res.status).toBe(409)
      } else {
        if (hd.status === "confirmed") { expect(res.status, JSON.stringify(res.body)).toBe(200); x.active += hd.points; hd.status = "reversed" }
        else if (hd.status === "reversed") expect(res.body.data).toMatchObject({ idempotent_replay: true, points_restored: 0 })
        else expect(res.status).toBe(409)
      }
      touched = hd.member
    } else if (c.k === "action") {
      // app_download once per member, review once per scope_key, other types unlimited (the built-in limits).
      const claim = c.type === "app_download" ? `${c.m}:app` : c.type === "review" ? `${c.m}:review:${c.scope}` : undefined
      const res = await send("/api/v1/loyalty/actions", {
        member_id: members[c.m]!.member_id, action_type: c.type, points: 25, ...(c.type === "review" ? { scope_key: c.scope } : {}), external_reference_id: unique("act")
      }, true)
      if (claim !== undefined && claims.has(claim)) {
        expect(res.status, JSON.stringify(res.body)).toBe(409)
        expect(res.body.error.code).toBe("ACTION_LIMIT_REACHED")
        keyed.pop()
      } else {
        expect(res.status, JSON.stringify(res.body)).toBe(200)
        if (claim !== undefined) claims.add(claim)
        Object.assign(w[c.m]!, { active: w[c.m]!.active + 25, lifetime: w[c.m]!.lifetime + 25 })
      }
      touched = c.m
    } else if (c.k === "retry" && keyed.length > 0) {
      const again = keyed[c.i % keyed.length]!
      const res = await api("POST", again.path, again.body)
      expect(res.status, JSON.stringify(res.body)).toBe(200)
      expect(res.body.data.idempotent_replay).toBe(true)
      expect(res.body.data.points_awarded ?? res.body.data.points_deducted ?? 0).toBe(0)
      touched = members.findIndex((m) => m.member_id === again.body.member_id)
    }
    if (touched === undefined) continue
    const x = w[touched]!
    const id = members[touched]!.member_id
    expect(await member(id)).toMatchObject({ points_balance: x.active, points_available: x.active - x.held, points_pending: x.pending, points_held: x.held, lifetime_points: x.lifetime })
    expect(await ledgerAgrees(id)).toEqual({ balance: x.active, held: x.held })
  }
}

describe("random HTTP command sequences", () => {
  it("earn / action / confirm (whole or partial) / void / reverse / redeem / discount / hold / confirm / release / credit reverse / retry: every answer and balance is the model's, every ledger adds up, the liability report = Σ wallets", async () => {
    await fc.assert(fc.asyncProperty(fc.array(Cmd, { minLength: 5, maxLength: 30 }), runSequence), { numRuns: 40, endOnFailure: true, seed: Number(process.env.SEQ_SEED ?? Date.now() % 2 ** 31) })
    const liability = (await api("GET", "/api/v1/loyalty/liability")).body.data
    const [sums] = await h.sql`SELECT sum(balance_active)::int AS active, sum(balance_held)::int AS held, sum(balance_pending)::int AS pending,
        min(balance_active - balance_held)::int AS least FROM loyalty_members WHERE tenant_id = ${h.tenant.tenant_id} AND sandbox = false`
    expect(liability.points).toEqual({ active: sums!.active, held: sums!.held, pending: sums!.pending, available: sums!.active - sums!.held })
    expect(sums!.least).toBeGreaterThanOrEqual(0)
  }, 300_000)
})
