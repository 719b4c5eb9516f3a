import type { Sql, Tx } from "../../core/db/Database.ts"

/**
 * The loyalty tier of an email in a tenant's live mode (the telephony screen pop): the highest tier whose threshold the
 * member's qualifying points or nights in that tier's window reach; null for a stranger, an unsubscribed member, or a programme without tiers.
 */
export const tierOfEmail = async (sql: Sql | Tx, tenantId: string, email: string | null | undefined) => {
  if (email == null) return null
  const [row] = await sql`
    SELECT t.tier_slug, t.tier_name FROM loyalty_members m CROSS JOIN LATERAL loyalty_member_tier(m.member_id) t
    WHERE m.tenant_id = ${tenantId} AND m.sandbox = false AND m.email = ${email.trim().toLowerCase()} AND m.status = 'active'`
  return row === undefined ? null : { slug: row.tier_slug as string, name: row.tier_name as string }
}
