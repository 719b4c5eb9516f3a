import type { Sql } from "../../core/db/Database.ts"
import { readAsTenant } from "../../core/db/readAsTenant.ts"
import type { TenantScope } from "../../core/TenantScope.ts"
import { ContactAddress } from "../../schemas/contact.ts"
import { isoTime, jsonObject as object } from "./sqlJson.ts"

const HISTORY_MAX = 100
const CONFLICTS_MAX = 100

/** The contact's suppression on one channel, or null: by its email, its phone, and its phone without the "+" (a WhatsApp address). */
const suppressed = (channel: "email" | "whatsapp") => `(
  SELECT ${object({ reason: "s.reason", since: isoTime("s.created_at") })} FROM suppressions s
  WHERE s.tenant_id = c.tenant_id AND s.sandbox = c.sandbox AND s.channel = '${channel}'
    AND s.address IN (c.email, c.phone, regexp_replace(c.phone, '^[+]', ''))
  ORDER BY s.created_at, s.address LIMIT 1)`

const HISTORY = `(
  SELECT coalesce(json_agg(${object({
  channel: "h.channel", granted: "h.granted", source: "h.source", captured_at: isoTime("h.captured_at"), recorded_at: isoTime("h.recorded_at"),
  text: "h.text", ip: "h.ip", user_agent: "h.user_agent"
})} ORDER BY h.recorded_at DESC, h.id DESC), '[]')
  FROM (
    SELECT r.id, r.channel, r.granted, r.source, r.captured_at, r.recorded_at,
      coalesce(w.text, CASE WHEN r.source LIKE 'newsletter:%' THEN n.consent_text END) AS text, coalesce(r.ip, w.ip) AS ip,
      coalesce(r.user_agent, w.user_agent) AS user_agent
    FROM consent_records r
    LEFT JOIN website_consent_audit w ON w.contact_id = r.contact_id AND w.event_id::text = r.envelope_id
    -- The newsletter subscription by its key (tenant, mode, email): the contact's own email.
    LEFT JOIN newsletter_subscriptions n ON r.source LIKE 'newsletter:%' AND n.tenant_id = c.tenant_id AND n.sandbox = c.sandbox AND n.email = c.email
    WHERE r.contact_id = c.id ORDER BY r.recorded_at DESC, r.id DESC LIMIT ${HISTORY_MAX}) h)`

const HOTELS = `(
  SELECT coalesce(json_agg(${object({
  hotel_id: "h.id", code: "h.code", name: "h.name", first_seen_at: isoTime("ch.first_seen_at"), last_seen_at: isoTime("ch.last_seen_at")
})} ORDER BY ch.last_seen_at DESC, h.id), '[]')
  FROM contact_hotels ch JOIN hotels h ON h.id = ch.hotel_id WHERE ch.contact_id = c.id)`

// In-house beats an upcoming stay, which beats a past one (cancellations and no-shows say nothing).
const STAGE = `(
  SELECT (ARRAY['in-house', 'pre-arrival', 'post-stay', 'none'])[coalesce(min(CASE r.guest_stage WHEN 'in-house' THEN 1 WHEN 'pre-arrival' THEN 2 WHEN 'post-stay' THEN 3 END), 4)]
  FROM reservation_guests g JOIN reservations r ON r.id = g.reservation_id
  WHERE g.contact_id = c.id AND (r.guest_stage <> 'pre-arrival' OR r.check_out >= current_date))`

const CONFLICTS = `(
  SELECT coalesce(json_agg(${object({ other_contact_id: "x.other_contact_id", reason: "x.reason", source: "x.source", created_at: isoTime("x.created_at") })}
    ORDER BY x.created_at DESC, x.other_contact_id), '[]')
  FROM (
    SELECT CASE WHEN i.contact_id = c.id THEN i.other_contact_id ELSE i.contact_id END AS other_contact_id, i.reason, i.source, i.created_at
    FROM identity_conflicts i WHERE i.tenant_id = c.tenant_id AND i.sandbox = c.sandbox AND (i.contact_id = c.id OR i.other_contact_id = c.id)
    ORDER BY i.created_at DESC LIMIT ${CONFLICTS_MAX}) x)`

/**
 * The stored address (a jsonb object, whose keys PostgreSQL keeps sorted by length) rewritten in the schema's key order;
 * absent parts stay absent (ingestion stores only the schema's parts, as strings).
 */
const ADDRESS = `CASE WHEN jsonb_typeof(c.address) = 'object' THEN json_strip_nulls(${
  object(Object.fromEntries(Object.keys(ContactAddress.fields).map((k) => [k, `c.address->'${k}'`])))
}) END`

const channel = (granted: string, optedOut: string, name: "email" | "whatsapp") =>
  object({ granted, opted_out_at: isoTime(optedOut), suppressed: suppressed(name) })

/**
 * The answer of `GET /api/v1/contacts/{contact_id}` as PostgreSQL writes it: `{"success":true,"data":<ContactProfile>}`
 * (schemas/contact.ts), keys in the schema's order. One statement of fixed text: the contact row and its satellites,
 * each by an index on contact_id (or on the address, for suppressions), a handful of index scans whatever the
 * contact's history. Built as JSON by the database because the read is hot: the ingress neither decodes rows nor
 * encodes the answer (it cost a third of the ingress's CPU a read; test/contact/support.ts holds the tests' answers to
 * the schema).
 */
export const PROFILE_STATEMENT = `
  SELECT ${object({
  success: "true",
  data: object({
    contact_id: "c.id", phone: "c.phone", email: "c.email", first_name: "c.first_name", last_name: "c.last_name", language: "c.language",
    date_of_birth: "to_char(c.date_of_birth, 'YYYY-MM-DD')", gender: "c.gender", nationality: "c.nationality",
    document_type: "c.document_type", document_number: "c.document_number", address: ADDRESS, source: "c.source",
    subscription_status: "c.subscription_status", tags: "c.tags", custom_fields: "c.custom_fields",
    consent: object({
      email: channel("c.email_consent", "c.email_opted_out_at", "email"),
      whatsapp: channel("c.whatsapp_marketing_consent", "c.whatsapp_opted_out_at", "whatsapp"),
      history: HISTORY
    }),
    hotels: HOTELS, guest_stage: STAGE, identity_conflicts: CONFLICTS,
    created_at: isoTime("c.created_at"), updated_at: isoTime("c.updated_at")
  })
})}::text AS body
  FROM contacts c WHERE c.id = $1 AND c.tenant_id = $2 AND c.sandbox = $3`

/**
 * The whole profile of one contact of the scope as the answer's JSON text, or undefined (unknown, another account's,
 * the other mode's).
 */
export const readContactProfileAnswer = async (sql: Sql, scope: TenantScope, contactId: string): Promise<string | undefined> => {
  // Fixed text, prepared once per connection: planning it costs more than running it.
  const [[row]] = await readAsTenant(sql, scope.tenant_id, (tx) => [
    tx.unsafe(PROFILE_STATEMENT, [contactId, scope.tenant_id, scope.sandbox], { prepare: true })
  ])
  return row === undefined ? undefined : row.body as string
}
