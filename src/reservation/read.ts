import { readAttribution } from "../../core/b2b/attribution.ts"
import type { Sql, Tx } from "../../core/db/Database.ts"
import type { TenantScope } from "../../core/TenantScope.ts"

/** The stored reservation with its guests and B2B attribution, as the caller's tenant and mode (live or sandbox) see it. */
export const readReservation = async (sql: Sql | Tx, principal: TenantScope, externalId: string) => {
  const [r] = await sql`
    SELECT id AS reservation_id, external_id AS external_reservation_id, hotel_id, confirmation_number, booking_id,
      to_char(check_in, 'YYYY-MM-DD') AS check_in, to_char(check_out, 'YYYY-MM-DD') AS check_out, nights,
      to_char(booking_date, 'YYYY-MM-DD') AS booking_date, status, guest_stage, channel, source, company,
      amount::float8 AS amount, amount_net::float8 AS amount_net, currency, market_segment, agency, agency_code,
      external_created_at, external_updated_at, comments, metadata, stays, extras, version, booking_channel_code,
      channel_type, room_type, room_number, rate_plan, created_at, updated_at
    FROM reservations
    WHERE tenant_id = ${principal.tenant_id} AND sandbox = ${principal.sandbox} AND external_id = ${externalId}`
  if (!r) return undefined
  const [guests, attribution] = await Promise.all([sql`
    SELECT contact_id, first_name, last_name, email, phone, is_holder, pax_type,
      to_char(date_of_birth, 'YYYY-MM-DD') AS date_of_birth, gender, nationality, document_type, document_number,
      address, language, email_consent, whatsapp_marketing_consent, pre_checkin_completed_at, pre_checkin_source,
      relationship_to_holder
    FROM reservation_guests WHERE reservation_id = ${r.reservation_id as string} ORDER BY position`,
  readAttribution(sql, r.reservation_id as string)])
  return { ...r, guests: [...guests], attribution }
}
