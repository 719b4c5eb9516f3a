import { expect } from "@effect/vitest"
import type postgres from "postgres"
import { type LoyaltyMessages, LoyaltyProtocol } from "../../actors/loyalty/protocol.ts"
import type { PayloadOf } from "../../streams/ActorProtocol.ts"
import { createTenant, request, startPlatform, testSql, type RunningPlatform, type TestTenant } from "../support/platform.ts"
import { askRaw } from "../support/streams.ts"

/** A platform with a loyalty tenant (programme: EUR, 10 points per unit, 100 per night, 24 months, 0.01 per point). */
export const loyaltyHarness = (suffix: string) => {
  const h = {} as { platform: RunningPlatform; tenant: TestTenant; sql: postgres.Sql }
  let n = 0
  const setUp = async () => {
    h.sql = testSql()
    h.platform = await startPlatform(suffix, { overrides: { applyLanes: 4 } })
    h.tenant = await createTenant(suffix)
    const res = await api("PUT", "/api/v1/loyalty/program", { currency: "EUR", points_per_unit: 10, points_per_night: 100, expiry_months: 24, point_value: 0.01 })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
  }
  const tearDown = async () => {
    await h.platform?.stop()
    await h.sql?.end()
  }
  const api = (method: string, path: string, body?: unknown, headers?: Record<string, string>) =>
    request(h.platform.baseUrl, method, path, { key: h.tenant.live_key, ...(body === undefined ? {} : { body }), ...(headers ? { headers } : {}) })
  const unique = (prefix: string) => `${prefix}-${Date.now().toString(36)}-${n++}`
  const enroll = async (loyalty_balance?: number) => {
    const res = await api("POST", "/api/v1/loyalty/enroll", { email: `${unique("guest")}@gmail.com`, ...(loyalty_balance !== undefined ? { loyalty_balance } : {}) })
    expect(res.status, JSON.stringify(res.body)).toBe(201)
    return res.body.data as { member_id: string; email: string }
  }
  const member = async (memberId: string) => (await api("GET", `/api/v1/loyalty/member?member_id=${memberId}`)).body.data

  /** Σ lots = balance = Σ ledger = newest balance_after; held = Σ lot holds = Σ active holds = newest held_after; none negative. */
  const ledgerAgrees = async (memberId: string) => {
    const [row] = await h.sql`
      SELECT m.balance_active::int AS balance, m.balance_held::int AS held, m.balance_pending::int AS pending,
        (SELECT coalesce(sum(points_remaining), 0)::int FROM loyalty_lots WHERE member_id = m.member_id AND status = 'active') AS lots,
        (SELECT coalesce(sum(points_held), 0)::int FROM loyalty_lots WHERE member_id = m.member_id) AS lots_held,
        (SELECT coalesce(sum(points), 0)::int FROM loyalty_holds WHERE member_id = m.member_id AND status = 'active') AS holds,
        (SELECT coalesce(sum(points), 0)::int FROM loyalty_entries WHERE member_id = m.member_id) AS ledger,
        (SELECT coalesce(sum(held_points), 0)::int FROM loyalty_entries WHERE member_id = m.member_id) AS ledger_held,
        (SELECT coalesce(sum(pending_points), 0)::int FROM loyalty_entries WHERE member_id = m.member_id) AS ledger_pending,
        (SELECT balance_after::int FROM loyalty_entries WHERE member_id = m.member_id ORDER BY seq DESC LIMIT 1) AS last_after
      FROM loyalty_members m WHERE member_id = ${memberId}`
    expect(row!.lots).toBe(row!.balance)
    expect(row!.ledger).toBe(row!.balance)
    expect(row!.ledger_pending).toBe(row!.pending)
    expect(row!.lots_held).toBe(row!.held)
    expect(row!.holds).toBe(row!.held)
    expect(row!.ledger_held).toBe(row!.held)
    if (row!.last_after !== null) expect(row!.last_after).toBe(row!.balance)
    expect(row!.balance).toBeGreaterThanOrEqual(row!.held)
    expect(row!.held).toBeGreaterThanOrEqual(0)
    return { balance: row!.balance as number, held: row!.held as number }
  }

  /** A loyalty message published as an ingress would (askRaw), and the actor's reply. */
  const publish = <K extends keyof LoyaltyMessages & string>(type: K, payload: PayloadOf<LoyaltyMessages[K]>, sentAt?: number) =>
    askRaw(h.platform.config, { tenant_id: h.tenant.tenant_id, sandbox: false }, LoyaltyProtocol, type, payload, sentAt)
  return { h, setUp, tearDown, api, unique, enroll, member, ledgerAgrees, publish }
}
