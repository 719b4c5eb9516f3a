import type { Tx } from "../../core/db/Database.ts"
import type { Principal } from "../../schemas/api.ts"
import type { LedgerEntry, MemberView, ProgramView, RewardView, TierView } from "../../schemas/loyaltyAnswers.ts"
import type { PageRequest } from "../http/paging.ts"
import { encodeCursor, exactTime } from "../http/cursor.ts"

// Loyalty reads, each inside the principal's tenant (row-level security) and mode. Balances count only lots that
// are active and not past their expiry at the time of the read, so an expiry shows before the actor records it.

const iso = (v: unknown) => (v instanceof Date ? v.toISOString() : (v as string | null))

export const readProgram = async (tx: Tx, p: Principal): Promise<typeof ProgramView.Type | undefined> => {
  const [row] = await tx`SELECT currency, points_per_unit::float8 AS points_per_unit, points_per_night, pending_days, expiry_months,
      point_value::float8 AS point_value, action_rules, updated_at
    FROM loyalty_programs WHERE tenant_id = ${p.tenant_id} AND sandbox = ${p.sandbox}`
  return row === undefined ? undefined : { ...row, currency: (row.currency as string).trim(), updated_at: iso(row.updated_at) } as typeof ProgramView.Type
}

export const readTiers = async (tx: Tx, p: Principal) =>
  (await tx`SELECT tier_slug, tier_name, rank, threshold::float8 AS threshold, basis, "window", earn_multiplier::float8 AS earn_multiplier
    FROM loyalty_tiers WHERE tenant_id = ${p.tenant_id} AND sandbox = ${p.sandbox} ORDER BY rank`).map((r) => ({ ...r }) as typeof TierView.Type)

type Reward = typeof RewardView.Type

/** Rewards in the order they were added (oldest first): one by id, or a page after a cursor. */
const rewardRows = async (tx: Tx, p: Principal, by: { readonly reward_id: string } | PageRequest) =>
  (await tx`SELECT reward_id, name, type, points_cost::float8 AS points_cost, auto_fulfill, stock_remaining, active, created_at,
      ${tx.unsafe(exactTime("created_at"))} AS cursor_at
    FROM loyalty_rewards WHERE tenant_id = ${p.tenant_id} AND sandbox = ${p.sandbox} AND ${
      "reward_id" in by ? tx`reward_id = ${by.reward_id}`
      : by.after === undefined ? tx`true`
      : tx`(created_at, reward_id) > (${by.after.at}::text::timestamptz, ${by.after.id}::uuid)`
    } ORDER BY created_at, reward_id LIMIT ${"reward_id" in by ? 1 : by.limit + 1}`)
    .map(({ cursor_at, ...r }) => ({ reward: { ...r, created_at: iso(r.created_at) } as Reward, cursor: encodeCursor(cursor_at as string, r.reward_id as string) }))

/** One reward of the catalogue (undefined: none with that id in this tenant and mode). */
export const readReward = async (tx: Tx, p: Principal, rewardId: string): Promise<Reward | undefined> =>
  (await rewardRows(tx, p, { reward_id: rewardId }))[0]?.reward

/** A page of the catalogue and the cursor of the next page. */
export const readRewards = async (tx: Tx, p: Principal, page: PageRequest) => {
  const rows = await rewardRows(tx, p, page)
  return { rewards: rows.slice(0, page.limit).map((r) => r.reward), next_cursor: rows.length > page.limit ? rows[page.limit - 1]!.cursor : null }
}

/** The member id of an email or a member_id in this tenant and mode (undefined: no such member). */
export const findMemberId = async (tx: Tx, p: Principal, by: { readonly member_id?: string; readonly email?: string }) => {
  const [row] = by.member_id !== undefined
    ? await tx`SELECT member_id FROM loyalty_members WHERE tenant_id = ${p.tenant_id} AND sandbox = ${p.sandbox} AND member_id = ${by.member_id} AND kind = 'member'`
    : await tx`SELECT member_id FROM loyalty_members WHERE tenant_id = ${p.tenant_id} AND sandbox = ${p.sandbox} AND email = ${by.email!}`
  return row?.member_id as string | undefined
}

/** The member an earn transaction belongs to (undefined: no such earn in this tenant and mode). */
export const findEarnMember = async (tx: Tx, p: Principal, transactionId: string) => {
  const [row] = await tx`SELECT member_id FROM loyalty_entries
    WHERE entry_id = ${transactionId} AND tenant_id = ${p.tenant_id} AND sandbox = ${p.sandbox} AND kind = 'earn'`
  return row?.member_id as string | undefined
}

/** A member's profile, balances (from its lots, at this instant) and tier (from its qualifying totals). */
export const readMember = async (tx: Tx, p: Principal, memberId: string): Promise<typeof MemberView.Type | undefined> => {
  const [m] = await tx`
    SELECT m.member_id, m.email, m.first_name, m.last_name, m.phone, m.status, m.joined_at, m.lifetime_points::float8 AS lifetime_points,
      m.qualifying_points::float8 AS qualifying_points, m.qualifying_nights::float8 AS qualifying_nights,
      coalesce(sum(l.points_remaining) FILTER (WHERE (l.status = 'active' OR (l.status = 'pending' AND l.available_at <= now()))
        AND (l.expires_at IS NULL OR l.expires_at > now())), 0)::float8 AS active,
      coalesce(sum(l.points_remaining) FILTER (WHERE l.status = 'pending' AND (l.available_at IS NULL OR l.available_at > now())), 0)::float8 AS pending,
      -- Pending lots past their available_at are confirmed (recorded by the member's next command): lifetime counts them.
      coalesce(sum(l.points_remaining) FILTER (WHERE l.status = 'pending' AND l.available_at <= now()), 0)::float8 AS due,
      min(l.expires_at) FILTER (WHERE l.status = 'active' AND l.points_remaining > 0 AND l.expires_at > now()) AS next_expiry,
      (SELECT coalesce(sum(h.points), 0) FROM loyalty_holds h WHERE h.member_id = m.member_id AND h.status = 'active' AND h.expires_at > now())::float8 AS held
    FROM loyalty_members m LEFT JOIN loyalty_lots l ON l.member_id = m.member_id
    WHERE m.member_id = ${memberId} AND m.tenant_id = ${p.tenant_id} AND m.sandbox = ${p.sandbox}
    GROUP BY m.member_id`
  if (m === undefined) return undefined
  // Each tier judged on its own window's qualifying totals (loyalty_qualifying, migration 013).
  const tiers = await tx`
    SELECT t.tier_slug, t.tier_name, t.rank, t.threshold::float8 AS threshold, t.basis, t."window", q.points::float8 AS points, q.nights::float8 AS nights
    FROM loyalty_tiers t CROSS JOIN LATERAL loyalty_qualifying(${memberId}::uuid, t."window") q
    WHERE t.tenant_id = ${p.tenant_id} AND t.sandbox = ${p.sandbox} ORDER BY t.rank`
  const value = (t: Record<string, unknown>) => (t.basis === "qualifying_nights" ? t.nights : t.points) as number
  const reached = (t: Record<string, unknown>) => value(t) >= (t.threshold as number)
  const tier = [...tiers].reverse().find(reached)
  const next = tiers.find((t) => !reached(t) && (tier === undefined || (t.rank as number) > (tier.rank as number)))
  const [expiring] = m.next_expiry === null ? [] : await tx`
    SELECT coalesce(sum(points_remaining), 0)::float8 AS points FROM loyalty_lots
    WHERE member_id = ${memberId} AND status = 'active' AND expires_at = ${m.next_expiry}`
  return {
    member_id: m.member_id as string,
    email: m.email as string,
    first_name: m.first_name, last_name: m.last_name, phone: m.phone,
    status: m.status as string,
    joined_at: iso(m.joined_at)!,
    points_balance: m.active as number,
    // A hold past its expiry reserves nothing, whether or not a command has recorded its expiry yet.
    points_available: (m.active as number) - (m.held as number),
    points_pending: m.pending as number,
    points_held: m.held as number,
    lifetime_points: (m.lifetime_points as number) + (m.due as number),
    tier: tier === undefined ? null : { slug: tier.tier_slug as string, name: tier.tier_name as string },
    tier_progress: {
      qualifying_points: m.qualifying_points, qualifying_nights: m.qualifying_nights,
      next_tier: next?.tier_slug ?? null,
      to_next_tier: next === undefined ? null : Math.max(0, (next.threshold as number) - value(next)),
      window: next?.window ?? tier?.window ?? null
    },
    next_expiry: m.next_expiry === null ? null : { points: expiring!.points as number, expires_at: iso(m.next_expiry)! }
  }
}

/**
 * A page of the ledger, newest first: every movement with its sign, reason and the balance after it. The ledger's
 * order is the member's sequence; the cursor (time, id) names the last entry shown, and the next page starts below
 * that entry's sequence.
 */
export const readTransactions = async (tx: Tx, p: Principal, memberId: string, page: PageRequest) => {
  const after = page.after
  const rows = await tx`
    SELECT e.entry_id AS transaction_id, e.kind, e.points::float8 AS points, e.pending_points::float8 AS pending_points, e.status, e.balance_after::float8 AS balance_after,
      e.pending_after::float8 AS pending_after, e.reason, e.external_reference_id, e.reservation_id, e.reward_id, r.redemption_id, e.hold_id,
      e.reverses_entry_id, e.held_points::float8 AS held_points, e.held_after::float8 AS held_after, e.created_at, ${tx.unsafe(exactTime("e.created_at"))} AS cursor_at
    FROM loyalty_entries e LEFT JOIN loyalty_redemptions r ON r.entry_id = e.entry_id
    WHERE e.member_id = ${memberId} AND e.tenant_id = ${p.tenant_id} AND e.sandbox = ${p.sandbox}
      AND ${after === undefined ? tx`true` : tx`e.seq < (SELECT seq FROM loyalty_entries WHERE entry_id = ${after.id}::uuid AND member_id = ${memberId})`}
    ORDER BY e.seq DESC LIMIT ${page.limit + 1}`
  const entries = rows.slice(0, page.limit).map(({ cursor_at: _, ...r }) => ({ ...r, created_at: iso(r.created_at) }) as typeof LedgerEntry.Type)
  const last = rows[page.limit - 1]
  return { transactions: entries, next_cursor: rows.length > page.limit ? encodeCursor(last!.cursor_at as string, last!.transaction_id as string) : null }
}
