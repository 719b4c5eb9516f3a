import type { Sql } from "../../core/db/Database.ts"
import { readAsTenant } from "../../core/db/readAsTenant.ts"
import type { TenantScope } from "../../core/TenantScope.ts"
import type { ContactProfile } from "../../schemas/contact.ts"

/** A timestamp column as the API writes times: ISO 8601, UTC, to the millisecond. */
export const isoTime = (column: string) => `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`

const HISTORY_MAX = 100
/** Statements of fixed text, prepared once per connection (planning them costs more than running them). */
const PREPARED = { prepare: true } as const

/**
 * The whole profile of one contact of the scope, or undefined (unknown, another account's, the other mode's): the
 * contact row and its satellites, each by an index on contact_id (or on the address, for suppressions), a handful of
 * index scans whatever the contact's history.
 */
export const readContactProfile = async (sql: Sql, scope: TenantScope, contactId: string): Promise<ContactProfile | undefined> => {
  const key = [contactId, scope.tenant_id, scope.sandbox]
  // All six in one round trip: the satellites find the contact's addresses themselves rather than wait for its row,
  // and their rows are dropped when there is no such contact.
  const [[c], history, suppressions, hotels, stage, conflicts] = await readAsTenant(sql, scope.tenant_id, (tx) => [
    tx.unsafe(`
    SELECT id AS contact_id, phone, email, first_name, last_name, language, to_char(date_of_birth, 'YYYY-MM-DD') AS date_of_birth,
      gender, nationality, document_type, document_number, address, source, subscription_status, tags, custom_fields,
      email_consent, whatsapp_marketing_consent, ${isoTime("email_opted_out_at")} AS email_opted_out_at,
      ${isoTime("whatsapp_opted_out_at")} AS whatsapp_opted_out_at, ${isoTime("created_at")} AS created_at, ${isoTime("updated_at")} AS updated_at
    FROM contacts WHERE id = $1 AND tenant_id = $2 AND sandbox = $3`, key, PREPARED),
    tx.unsafe(`
      SELECT r.channel, r.granted, r.source, ${isoTime("r.captured_at")} AS captured_at, ${isoTime("r.recorded_at")} AS recorded_at,
        coalesce(w.text, CASE WHEN r.source LIKE 'newsletter:%' THEN n.consent_text END) AS text, coalesce(r.ip, w.ip) AS ip,
        coalesce(r.user_agent, w.user_agent) AS user_agent
      FROM consent_records r
      LEFT JOIN website_consent_audit w ON w.contact_id = r.contact_id AND w.event_id::text = r.envelope_id
      -- The newsletter subscription by its key (tenant, mode, email): the contact's own email.
      LEFT JOIN newsletter_subscriptions n ON r.source LIKE 'newsletter:%' AND n.tenant_id = $2 AND n.sandbox = $3
        AND n.email = (SELECT email FROM contacts WHERE id = $1 AND tenant_id = $2 AND sandbox = $3)
      WHERE r.contact_id = $1 ORDER BY r.recorded_at DESC, r.id DESC LIMIT ${HISTORY_MAX}`, key, PREPARED),
    // By the contact's email, its phone, and its phone without the "+" (how a WhatsApp address is written).
    tx.unsafe(`
      SELECT s.channel, s.reason, ${isoTime("s.created_at")} AS since FROM contacts c JOIN suppressions s
        ON s.tenant_id = c.tenant_id AND s.sandbox = c.sandbox AND s.channel IN ('email', 'whatsapp')
        AND s.address IN (c.email, c.phone, regexp_replace(c.phone, '^[+]', ''))
      WHERE c.id = $1 AND c.tenant_id = $2 AND c.sandbox = $3`, key, PREPARED),
    tx.unsafe(`
      SELECT h.id AS hotel_id, h.code, h.name, ${isoTime("ch.first_seen_at")} AS first_seen_at, ${isoTime("ch.last_seen_at")} AS last_seen_at
      FROM contact_hotels ch JOIN hotels h ON h.id = ch.hotel_id WHERE ch.contact_id = $1 ORDER BY ch.last_seen_at DESC`, [contactId], PREPARED),
    // In-house beats an upcoming stay, which beats a past one (cancellations and no-shows say nothing).
    tx.unsafe(`
      SELECT coalesce(min(CASE r.guest_stage WHEN 'in-house' THEN 1 WHEN 'pre-arrival' THEN 2 WHEN 'post-stay' THEN 3 END), 4) AS rank
      FROM reservation_guests g JOIN reservations r ON r.id = g.reservation_id
      WHERE g.contact_id = $1 AND (r.guest_stage <> 'pre-arrival' OR r.check_out >= current_date)`, [contactId], PREPARED),
    tx.unsafe(`
      SELECT CASE WHEN contact_id = $1 THEN other_contact_id ELSE contact_id END AS other_contact_id, reason, source,
        ${isoTime("created_at")} AS created_at
      FROM identity_conflicts WHERE tenant_id = $2 AND sandbox = $3 AND (contact_id = $1 OR other_contact_id = $1)
      ORDER BY created_at DESC LIMIT 100`, key, PREPARED)
  ])
  if (c === undefined) return undefined
  const suppressed = (channel: string) => {
    const s = suppressions.find((row) => row.channel === channel)
    return s === undefined ? null : { reason: s.reason as string, since: s.since as string }
  }
  const { email_consent, whatsapp_marketing_consent, email_opted_out_at, whatsapp_opted_out_at, ...profile } = c
  return {
    ...(profile as unknown as Omit<ContactProfile, "consent" | "hotels" | "guest_stage" | "identity_conflicts">),
    consent: {
      email: { granted: email_consent, opted_out_at: email_opted_out_at, suppressed: suppressed("email") },
      whatsapp: { granted: whatsapp_marketing_consent, opted_out_at: whatsapp_opted_out_at, suppressed: suppressed("whatsapp") },
      history: history as unknown as ContactProfile["consent"]["history"]
    },
    hotels: hotels as unknown as ContactProfile["hotels"],
    guest_stage: (["in-house", "pre-arrival", "post-stay", "none"] as const)[Number(stage[0]!.rank) - 1]!,
    identity_conflicts: conflicts as unknown as ContactProfile["identity_conflicts"]
  }
}
