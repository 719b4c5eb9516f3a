import type { Sql, Tx } from "../../core/db/Database.ts"

/**
 * The loyalty tier of an email in a tenant's live mode (the telephony screen pop): the highest tier whose threshold the
 * member's qualifying points or nights reach; null for a stranger, an unsubscribed member, or a programme without tiers.
 */
export const tierOfEmail = async (sql: Sql | Tx, tenantId: string, email: string | null | undefined) => {
  if (email == null) return null
  const [row] = await sql`
    SELECT t.tier_slug, t.tier_name FROM loyalty_members m JOIN loyalty_tiers t ON t.tenant_id = m.tenant_id AND t.sandbox = m.sandbox
    WHERE m.tenant_id = ${tenantId} AND m.sandbox = false AND m.email = ${email.trim().toLowerCase()} AND m.status = 'active'
      AND (CASE t.basis WHEN 'qualifying_nights' THEN m.qualifying_nights ELSE m.qualifying_points END) >= t.threshold
    ORDER BY t.rank DESC LIMIT 1`
  return row === undefined ? null : { slug: row.tier_slug as string, name: row.tier_name as string }
}
