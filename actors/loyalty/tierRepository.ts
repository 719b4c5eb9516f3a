import type { Tx } from "../../core/db/Database.ts"
import type { TenantScope } from "../../core/TenantScope.ts"

// Tier reads of the member actor (tiers come from qualifying totals, which only stay earnings raise).

/** The member's tier: the highest whose threshold its qualifying points or nights in the tier's window reach (null: none). */
export const tierOf = async (tx: Tx, scope: TenantScope, memberId: string) => {
  void scope
  // Each tier over its own window (loyalty_member_tier, migration 013).
  const [row] = await tx`SELECT tier_slug, tier_name FROM loyalty_member_tier(${memberId})`
  return row === undefined ? null : { slug: row.tier_slug as string, name: row.tier_name as string }
}

export const qualifyingOf = async (tx: Tx, memberId: string) => {
  const [row] = await tx`SELECT qualifying_points::float8 AS qualifying_points, qualifying_nights::float8 AS qualifying_nights
    FROM loyalty_members WHERE member_id = ${memberId}`
  return row as { qualifying_points: number; qualifying_nights: number }
}
