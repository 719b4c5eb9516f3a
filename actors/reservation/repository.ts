import { jsonb, type Tx } from "../../core/db/Database.ts"
import type { TenantScope } from "../../core/TenantScope.ts"
import type { GuestInput } from "./protocol.ts"
import type { ReservationRow } from "./state.ts"

const COLUMNS = `id, hotel_id, confirmation_number, booking_id, to_char(check_in, 'YYYY-MM-DD') AS check_in,
  to_char(check_out, 'YYYY-MM-DD') AS check_out, to_char(booking_date, 'YYYY-MM-DD') AS booking_date, status, source,
  guest_stage, nights, channel, company, amount::float8 AS amount, amount_net::float8 AS amount_net, currency,
  market_segment, agency, agency_code, external_created_at, external_updated_at, comments, metadata, stays, extras, version,
  booking_channel_code, channel_type, room_type, room_number, rate_plan`

export const findForUpdate = async (tx: Tx, scope: TenantScope, externalId: string): Promise<ReservationRow | undefined> => {
  const rows = await tx.unsafe(
    `SELECT ${COLUMNS} FROM reservations WHERE tenant_id = $1 AND sandbox = $2 AND external_id = $3 FOR UPDATE`,
    [scope.tenant_id, scope.sandbox, externalId]
  )
  const row = rows[0]
  if (!row) return undefined
  const iso = (v: unknown) => (v instanceof Date ? v.toISOString() : (v as string | null))
  return { ...row, external_created_at: iso(row.external_created_at), external_updated_at: iso(row.external_updated_at) } as unknown as ReservationRow
}

export const save = async (tx: Tx, scope: TenantScope, externalId: string, r: ReservationRow): Promise<void> => {
  await tx`
    INSERT INTO reservations (id, tenant_id, sandbox, external_id, hotel_id, confirmation_number, booking_id, check_in,
      check_out, nights, booking_date, status, guest_stage, channel, source, company, amount, amount_net, currency,
      market_segment, agency, agency_code, external_created_at, external_updated_at, comments, metadata, stays, extras,
      version, booking_channel_code, channel_type, room_type, room_number, rate_plan)
    VALUES (${r.id}, ${scope.tenant_id}, ${scope.sandbox}, ${externalId}, ${r.hotel_id}, ${r.confirmation_number},
      ${r.booking_id}, ${r.check_in}, ${r.check_out}, ${r.nights}, ${r.booking_date}, ${r.status}, ${r.guest_stage},
      ${r.channel}, ${r.source}, ${r.company}, ${r.amount}, ${r.amount_net}, ${r.currency}, ${r.market_segment},
      ${r.agency}, ${r.agency_code}, ${r.external_created_at}, ${r.external_updated_at}, ${r.comments},
      ${jsonb(tx, r.metadata)}, ${jsonb(tx, r.stays)},
      ${jsonb(tx, r.extras)}, ${r.version}, ${r.booking_channel_code}, ${r.channel_type}, ${r.room_type}, ${r.room_number},
      ${r.rate_plan})
    ON CONFLICT (tenant_id, sandbox, external_id) DO UPDATE SET
      hotel_id = EXCLUDED.hotel_id, confirmation_number = EXCLUDED.confirmation_number,
      booking_id = EXCLUDED.booking_id, check_in = EXCLUDED.check_in, check_out = EXCLUDED.check_out,
      nights = EXCLUDED.nights, booking_date = EXCLUDED.booking_date, status = EXCLUDED.status,
      guest_stage = EXCLUDED.guest_stage, channel = EXCLUDED.channel, source = EXCLUDED.source,
      company = EXCLUDED.company, amount = EXCLUDED.amount, amount_net = EXCLUDED.amount_net,
      currency = EXCLUDED.currency, market_segment = EXCLUDED.market_segment, agency = EXCLUDED.agency,
      agency_code = EXCLUDED.agency_code, external_created_at = EXCLUDED.external_created_at,
      external_updated_at = EXCLUDED.external_updated_at, comments = EXCLUDED.comments, metadata = EXCLUDED.metadata,
      stays = EXCLUDED.stays, extras = EXCLUDED.extras, version = EXCLUDED.version,
      booking_channel_code = EXCLUDED.booking_channel_code, channel_type = EXCLUDED.channel_type,
      room_type = EXCLUDED.room_type, room_number = EXCLUDED.room_number, rate_plan = EXCLUDED.rate_plan, updated_at = now()`
}

/** Replaces the reservation's guest list (sent guests are the whole list; an empty list never reaches here). */
export const replaceGuests = async (
  tx: Tx,
  scope: TenantScope,
  reservationId: string,
  guests: ReadonlyArray<GuestInput>,
  contactIds: ReadonlyArray<string | null>
): Promise<void> => {
  await tx`DELETE FROM reservation_guests WHERE reservation_id = ${reservationId}`
  const rows = guests.map((g, position) => ({
    reservation_id: reservationId,
    position,
    tenant_id: scope.tenant_id,
    sandbox: scope.sandbox,
    contact_id: contactIds[position] ?? null,
    first_name: g.first_name,
    last_name: g.last_name ?? null,
    email: g.email ?? null,
    phone: g.phone ?? null,
    is_holder: g.is_holder,
    pax_type: g.pax_type ?? null,
    date_of_birth: g.date_of_birth ?? null,
    gender: g.gender ?? null,
    nationality: g.nationality ?? null,
    document_type: g.document_type ?? null,
    document_number: g.document_number ?? null,
    address: jsonb(tx, g.address),
    language: g.language ?? null,
    email_consent: g.email_consent ?? null,
    whatsapp_marketing_consent: g.whatsapp_marketing_consent ?? null,
    pre_checkin_completed_at: g.pre_checkin_completed_at ?? null,
    pre_checkin_source: g.pre_checkin_source ?? null,
    relationship_to_holder: g.relationship_to_holder ?? null
  }))
  await tx`INSERT INTO reservation_guests ${tx(rows)}`
}

export const insertEvent = async (
  tx: Tx,
  scope: TenantScope,
  e: { id: string; type: string; contact_id: string | null; hotel_id: string; reservation_id: string; source: string; payload: unknown }
) => {
  await tx`
    INSERT INTO events (id, tenant_id, sandbox, type, contact_id, hotel_id, reservation_id, source, payload)
    VALUES (${e.id}, ${scope.tenant_id}, ${scope.sandbox}, ${e.type}, ${e.contact_id}, ${e.hotel_id},
      ${e.reservation_id}, ${e.source}, ${jsonb(tx, e.payload)})`
}
