import type { Sql, Tx } from "../../core/db/Database.ts"
import type { TenantScope } from "../../core/TenantScope.ts"
import type { GuestProfileData } from "../../schemas/guest.ts"
import { asJson } from "../http/answers.ts"
import type { FieldRule } from "./customFields.ts"

export const fieldRules = async (sql: Sql, p: TenantScope): Promise<Array<FieldRule>> =>
  (await sql`
    SELECT field_key, field_type, options FROM custom_field_definitions
    WHERE tenant_id = ${p.tenant_id} AND sandbox = ${p.sandbox}`) as unknown as Array<FieldRule>

export const channelMapping = async (sql: Sql, tenantId: string, code: string) => {
  const [row] = await sql`SELECT name, channel_type FROM channel_mappings WHERE tenant_id = ${tenantId} AND code = ${code}`
  return row as { name: string; channel_type: string } | undefined
}

export const contactIdByPhone = async (sql: Sql, p: TenantScope, phone: string) => {
  const [row] = await sql`SELECT id FROM contacts WHERE tenant_id = ${p.tenant_id} AND sandbox = ${p.sandbox} AND phone = ${phone}`
  return row?.id as string | undefined
}

/** The guest profile as GET /api/v1/guests answers it. */
export const readGuestProfile = async (sql: Sql | Tx, p: TenantScope, phone: string): Promise<typeof GuestProfileData.Type | undefined> => {
  const [c] = await sql`
    SELECT id AS contact_id, phone, email, first_name, last_name, language, to_char(date_of_birth, 'YYYY-MM-DD') AS date_of_birth,
      gender, nationality, document_type, document_number, address, subscription_status, source, tags, custom_fields,
      email_consent, whatsapp_marketing_consent, created_at, updated_at
    FROM contacts WHERE tenant_id = ${p.tenant_id} AND sandbox = ${p.sandbox} AND phone = ${phone}`
  if (!c) return undefined
  const id = c.contact_id as string
  const [consents, hotels, reservations] = await Promise.all([
    sql`SELECT channel, granted, source, captured_at, recorded_at FROM consent_records WHERE contact_id = ${id} ORDER BY recorded_at DESC LIMIT 50`,
    sql`SELECT h.id AS hotel_id, h.code, h.name, ch.first_seen_at, ch.last_seen_at FROM contact_hotels ch JOIN hotels h ON h.id = ch.hotel_id
        WHERE ch.contact_id = ${id} ORDER BY ch.last_seen_at DESC`,
    sql`SELECT DISTINCT ON (r.id) r.id AS reservation_id, r.external_id AS external_reservation_id, r.hotel_id, r.status, r.guest_stage,
          to_char(r.check_in, 'YYYY-MM-DD') AS check_in, to_char(r.check_out, 'YYYY-MM-DD') AS check_out, g.is_holder
        FROM reservation_guests g JOIN reservations r ON r.id = g.reservation_id WHERE g.contact_id = ${id}
        ORDER BY r.id, g.is_holder DESC`
  ])
  const { email_consent, whatsapp_marketing_consent, ...profile } = c
  // Timestamps as ISO strings, as the JSON answer carries them.
  return asJson({
    ...profile,
    consent: { email: email_consent, whatsapp_marketing: whatsapp_marketing_consent, history: [...consents] },
    hotels: [...hotels],
    reservations: [...reservations].sort((a, b) => String(b.check_in).localeCompare(String(a.check_in))).slice(0, 20)
  }) as unknown as typeof GuestProfileData.Type
}
