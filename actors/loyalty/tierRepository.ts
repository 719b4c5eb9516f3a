import type { Tx } from "../../core/db/Database.ts"
import type { TenantScope } from "../../core/TenantScope.ts"

// Tier reads of the member actor (tiers come from qualifying totals, which only stay earnings raise).

/** The member's tier: the highest whose threshold its qualifying points or nights reach (null: none or no tiers). */
export const tierOf = async (tx: Tx, scope: TenantScope, memberId: string) => {
  const [row] = await tx`
    SELECT t.tier_slug, t.tier_name FROM loyalty_tiers t, loyalty_members m
    WHERE m.member_id = ${memberId} AND t.tenant_id = ${scope.tenant_id} AND t.sandbox = ${scope.sandbox}
      AND (CASE t.basis WHEN 'qualifying_nights' THEN m.qualifying_nights ELSE m.qualifying_points END) >= t.threshold
    ORDER BY t.rank DESC LIMIT 1`
  return row === undefined ? null : { slug: row.tier_slug as string, name: row.tier_name as string }
}

export const qualifyingOf = async (tx: Tx, memberId: string) => {
  const [row] = await tx`SELECT qualifying_points::float8 AS qualifying_points, qualifying_nights::float8 AS qualifying_nights
    FROM loyalty_members WHERE member_id = ${memberId}`
  return row as { qualifying_points: number; qualifying_nights: number }
}
