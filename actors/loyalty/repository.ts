import type { Tx } from "../../core/db/Database.ts"
import type { TenantScope } from "../../core/TenantScope.ts"
import type { Balances } from "./protocol.ts"
import type { Lot, Wallet } from "./state.ts"

// Loyalty rows as the member actor reads and writes them. bigint columns are read as float8: points stay far below
// 2^53, and the answers are JSON numbers.

const iso = (v: unknown) => (v instanceof Date ? v.toISOString() : (v as string | null))

export interface MemberRow {
  readonly member_id: string
  readonly status: "active" | "unsubscribed"
  readonly wallet: Wallet
}

/** The member with its lots that still hold points, locked for this transaction (undefined: not enrolled). */
export const loadMemberForUpdate = async (tx: Tx, memberId: string): Promise<MemberRow | undefined> => {
  const [m] = await tx`
    SELECT member_id, status, balance_active::float8 AS balance_active, balance_pending::float8 AS balance_pending,
      balance_held::float8 AS balance_held,
      lifetime_points::float8 AS lifetime_points,
      (SELECT coalesce(max(s), 0) FROM (SELECT max(seq) AS s FROM loyalty_entries WHERE member_id = ${memberId}
        UNION ALL SELECT max(seq) FROM loyalty_lots WHERE member_id = ${memberId}) x)::float8 AS last_seq
    FROM loyalty_members WHERE member_id = ${memberId} FOR UPDATE`
  if (!m) return undefined
  const lots = await tx`
    SELECT lot_id, status, points_original::float8 AS points_original, points_remaining::float8 AS points_remaining,
      points_held::float8 AS points_held, expires_at, available_at, created_at, seq::float8 AS seq
    FROM loyalty_lots WHERE member_id = ${memberId} AND status IN ('active', 'pending') AND points_remaining > 0`
  const holds = await tx`
    SELECT h.hold_id, h.points::float8 AS points, h.expires_at,
      coalesce(json_agg(json_build_object('lot_id', hl.lot_id, 'points', hl.points) ORDER BY hl.lot_id) FILTER (WHERE hl.lot_id IS NOT NULL), '[]') AS draws
    FROM loyalty_holds h LEFT JOIN loyalty_hold_lots hl ON hl.hold_id = h.hold_id
    WHERE h.member_id = ${memberId} AND h.status = 'active' GROUP BY h.hold_id`
  return {
    member_id: m.member_id as string,
    status: m.status as MemberRow["status"],
    wallet: {
      balance_active: m.balance_active as number,
      balance_pending: m.balance_pending as number,
      balance_held: m.balance_held as number,
      lifetime_points: m.lifetime_points as number,
      next_seq: (m.last_seq as number) + 1,
      lots: lots.map((l) => ({ ...l, expires_at: iso(l.expires_at), available_at: iso(l.available_at), created_at: iso(l.created_at)! }) as unknown as Lot),
      holds: holds.map((h) => ({
        hold_id: h.hold_id as string, status: "active" as const, points: h.points as number, expires_at: iso(h.expires_at)!,
        draws: (h.draws as Array<{ lot_id: string; points: number }>).map((d) => ({ lot_id: d.lot_id, points: Number(d.points) }))
      }))
    }
  }
}

export const insertMember = (tx: Tx, scope: TenantScope, m: { member_id: string; email: string; first_name: string | null; last_name: string | null; phone: string | null }) =>
  tx`INSERT INTO loyalty_members (member_id, tenant_id, sandbox, email, first_name, last_name, phone)
    VALUES (${m.member_id}, ${scope.tenant_id}, ${scope.sandbox}, ${m.email}, ${m.first_name}, ${m.last_name}, ${m.phone})`

/** Fills profile fields the member has blank; re-activates an unsubscribed member. */
export const refreshMember = (tx: Tx, memberId: string, p: { first_name: string | null; last_name: string | null; phone: string | null }) =>
  tx`UPDATE loyalty_members SET first_name = coalesce(first_name, ${p.first_name}), last_name = coalesce(last_name, ${p.last_name}),
    phone = coalesce(phone, ${p.phone}), status = 'active', updated_at = now() WHERE member_id = ${memberId}`

export const setStatus = (tx: Tx, memberId: string, status: "active" | "unsubscribed") =>
  tx`UPDATE loyalty_members SET status = ${status}, updated_at = now() WHERE member_id = ${memberId}`

export { type EntryExtras, type NewHold, saveTransition } from "./saveTransition.ts"

/** Adds stay nights and stay points to the qualifying totals tiers are computed from (spending never lowers them). */
export const addQualifying = (tx: Tx, memberId: string, points: number, nights: number) =>
  tx`UPDATE loyalty_members SET qualifying_points = qualifying_points + ${points}, qualifying_nights = qualifying_nights + ${nights}
    WHERE member_id = ${memberId}`

/** The lot an earn entry created, with its state now and what it adds to the tier totals (undefined: no such earn). */
export const findEarnLot = async (tx: Tx, memberId: string, transactionId: string) => {
  const [row] = await tx`
    SELECT l.lot_id, l.status, l.points_original::float8 AS points, l.qualifying_points::float8 AS qualifying_points,
      l.qualifying_nights::float8 AS qualifying_nights
    FROM loyalty_entries e JOIN loyalty_entry_lots el ON el.entry_id = e.entry_id JOIN loyalty_lots l ON l.lot_id = el.lot_id
    WHERE e.entry_id = ${transactionId} AND e.member_id = ${memberId} AND e.kind = 'earn'`
  return row as { lot_id: string; status: string; points: number; qualifying_points: number; qualifying_nights: number } | undefined
}

/** The entry a request key already made, in this tenant and mode (any member). */
export const findByKey = async (tx: Tx, scope: TenantScope, op: string, key: string) => {
  const [row] = await tx`
    SELECT e.entry_id, e.member_id, e.status, e.points::float8 AS points, e.fingerprint, r.redemption_id, r.status AS redemption_status,
      r.reward_id, l.expires_at
    FROM loyalty_entries e
    LEFT JOIN loyalty_redemptions r ON r.entry_id = e.entry_id
    LEFT JOIN loyalty_entry_lots el ON el.entry_id = e.entry_id AND e.kind = 'earn'
    LEFT JOIN loyalty_lots l ON l.lot_id = el.lot_id
    WHERE e.tenant_id = ${scope.tenant_id} AND e.sandbox = ${scope.sandbox} AND e.op = ${op} AND e.external_reference_id = ${key}`
  return row === undefined ? undefined : { ...row, expires_at: iso(row.expires_at) } as {
    entry_id: string; member_id: string; status: string; points: number; fingerprint: unknown; redemption_id: string | null
    redemption_status: "pending" | "fulfilled" | null; reward_id: string | null; expires_at: string | null
  }
}

export const insertRedemption = (tx: Tx, scope: TenantScope, r: {
  redemption_id: string; entry_id: string; member_id: string; reward_id: string | null; points: number; status: string; notes: string | null; created_at: string
  auction_id?: string
}) =>
  tx`INSERT INTO loyalty_redemptions (redemption_id, entry_id, member_id, tenant_id, sandbox, reward_id, points, status, notes, created_at, auction_id)
    VALUES (${r.redemption_id}, ${r.entry_id}, ${r.member_id}, ${scope.tenant_id}, ${scope.sandbox}, ${r.reward_id}, ${r.points}, ${r.status},
      ${r.notes}, ${r.created_at}, ${r.auction_id ?? null})`

export const findReward = async (tx: Tx, scope: TenantScope, rewardId: string) => {
  const [row] = await tx`SELECT reward_id, name, type, points_cost::float8 AS points_cost, auto_fulfill, stock_remaining, active FROM loyalty_rewards
    WHERE reward_id = ${rewardId} AND tenant_id = ${scope.tenant_id} AND sandbox = ${scope.sandbox}`
  return row as { reward_id: string; name: string; type: string; points_cost: number; auto_fulfill: boolean; stock_remaining: number | null; active: boolean } | undefined
}

/** Takes one unit of a stocked reward; false when none is left (the CHECK makes an oversell impossible anyway). */
export const takeStock = async (tx: Tx, rewardId: string, quantity = 1) =>
  (await tx`UPDATE loyalty_rewards SET stock_remaining = stock_remaining - ${quantity} WHERE reward_id = ${rewardId}
    AND (stock_remaining IS NULL OR stock_remaining >= ${quantity}) RETURNING reward_id`).length === 1

export const findProgram = async (tx: Tx, scope: TenantScope) => {
  const [row] = await tx`SELECT trim(currency) AS currency, points_per_unit::float8 AS points_per_unit, points_per_night, expiry_months,
      point_value::float8 AS point_value, pending_days
    FROM loyalty_programs WHERE tenant_id = ${scope.tenant_id} AND sandbox = ${scope.sandbox}`
  return row as { currency: string; points_per_unit: number; points_per_night: number; expiry_months: number | null; point_value: number; pending_days: number } | undefined
}

/** The earn multiplier of the member's tier (1 without tiers): the highest tier whose threshold the member reached. */
export const tierMultiplier = async (tx: Tx, scope: TenantScope, memberId: string) => {
  void scope
  // The tier over its own window (loyalty_member_tier, migration 013).
  const [row] = await tx`SELECT earn_multiplier::float8 AS m FROM loyalty_member_tier(${memberId})`
  return (row?.m as number | undefined) ?? 1
}

export const balancesOf = (w: Wallet): Balances => ({
  points_balance: w.balance_active, points_available: w.balance_active - w.balance_held, points_pending: w.balance_pending,
  points_held: w.balance_held, lifetime_points: w.lifetime_points
})
