import { PREPARED, type Tx, withRecords } from "../../core/db/Database.ts"
import type { TenantScope } from "../../core/TenantScope.ts"
import type { GuestInput } from "./protocol.ts"
import type { ReservationRow } from "./state.ts"

// The reservation actor's tables, set-based: each statement carries every reservation of a wave.

const COLUMNS = `external_id, id, hotel_id, confirmation_number, booking_id, to_char(check_in, 'YYYY-MM-DD') AS check_in,
  to_char(check_out, 'YYYY-MM-DD') AS check_out, to_char(booking_date, 'YYYY-MM-DD') AS booking_date, status, source,
  guest_stage, nights, channel, company, amount::float8 AS amount, amount_net::float8 AS amount_net, currency,
  market_segment, agency, agency_code, external_created_at, external_updated_at, comments, metadata, stays, extras, version,
  booking_channel_code, channel_type, room_type, room_number, rate_plan, body_hash`

const iso = (v: unknown) => (v instanceof Date ? v.toISOString() : (v as string | null))

/** The stored reservations of these partner ids, locked (in id order) until the group commits; by partner id. */
export const findForUpdate = async (tx: Tx, scope: TenantScope, externalIds: ReadonlyArray<string>): Promise<Map<string, ReservationRow>> => {
  const rows = await tx.unsafe(
    `SELECT ${COLUMNS} FROM reservations WHERE tenant_id = $1 AND sandbox = $2 AND external_id = ANY($3::text[])
     ORDER BY external_id FOR UPDATE`,
    [scope.tenant_id, scope.sandbox, externalIds as never], PREPARED
  )
  return new Map(rows.map(({ external_id, ...row }) => [
    external_id as string,
    { ...row, external_created_at: iso(row.external_created_at), external_updated_at: iso(row.external_updated_at) } as unknown as ReservationRow
  ]))
}

/**
 * Inserts new reservations and overwrites existing ones with their merged state, in one statement. The rows travel as
 * one jsonb array, so the statement's text (and its prepared plan) is the same whatever the wave's size. A reservation
 * belongs to the deployment (`namespace`) that last wrote it: only that deployment's date scans act for it.
 */
export const save = async (
  tx: Tx, scope: TenantScope, reservations: ReadonlyArray<{ readonly external_id: string; readonly row: ReservationRow }>, namespace: string
) => {
  if (reservations.length === 0) return
  const records = reservations.map(({ external_id, row }) => ({ ...row, external_id, namespace }))
  await withRecords(
    tx,
    scope,
    `INSERT INTO reservations (id, tenant_id, sandbox, external_id, hotel_id, confirmation_number, booking_id, check_in,
       check_out, nights, booking_date, status, guest_stage, channel, source, company, amount, amount_net, currency,
       market_segment, agency, agency_code, external_created_at, external_updated_at, comments, metadata, stays, extras,
       version, booking_channel_code, channel_type, room_type, room_number, rate_plan, body_hash, namespace)
     SELECT s.id, $1, $2, s.external_id, s.hotel_id, s.confirmation_number, s.booking_id, s.check_in, s.check_out,
       s.nights, s.booking_date, s.status, s.guest_stage, s.channel, s.source, s.company, s.amount, s.amount_net,
       s.currency, s.market_segment, s.agency, s.agency_code, s.external_created_at, s.external_updated_at, s.comments,
       nullif(s.metadata, 'null'::jsonb), coalesce(s.stays, '[]'::jsonb), coalesce(s.extras, '[]'::jsonb), s.version,
       s.booking_channel_code, s.channel_type, s.room_type, s.room_number, s.rate_plan, s.body_hash, s.namespace
     FROM jsonb_to_recordset($3::jsonb) AS s(id uuid, external_id text, hotel_id uuid, confirmation_number text,
       booking_id text, check_in date, check_out date, nights integer, booking_date date, status text, guest_stage text,
       channel text, source text, company text, amount numeric, amount_net numeric, currency text, market_segment text,
       agency text, agency_code text, external_created_at timestamptz, external_updated_at timestamptz, comments text,
       metadata jsonb, stays jsonb, extras jsonb, version integer, booking_channel_code text, channel_type text,
       room_type text, room_number text, rate_plan text, body_hash text, namespace text)
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
       room_type = EXCLUDED.room_type, room_number = EXCLUDED.room_number, rate_plan = EXCLUDED.rate_plan,
       body_hash = EXCLUDED.body_hash, namespace = EXCLUDED.namespace, updated_at = now()`,
    records
  )
}

/** Replaces the guest lists of these reservations (sent guests are the whole list; an empty list never reaches here). */
export const replaceGuests = async (
  tx: Tx,
  scope: TenantScope,
  lists: ReadonlyArray<{ readonly reservationId: string; readonly guests: ReadonlyArray<GuestInput>; readonly contactIds: ReadonlyArray<string | null> }>
): Promise<void> => {
  if (lists.length === 0) return
  const records = lists.flatMap(({ reservationId, guests, contactIds }) => guests.map((g, position) => ({
    ...g, reservation_id: reservationId, position, contact_id: contactIds[position] ?? null
  })))
  // Sent together: the connection runs them in order (the delete first), in one round trip.
  await Promise.all([
    tx`DELETE FROM reservation_guests WHERE reservation_id = ANY(${lists.map((l) => l.reservationId)}::uuid[])`,
    withRecords(
      tx,
      scope,
      `INSERT INTO reservation_guests (reservation_id, position, tenant_id, sandbox, contact_id, first_name, last_name,
         email, phone, is_holder, pax_type, date_of_birth, gender, nationality, document_type, document_number, address,
         language, email_consent, whatsapp_marketing_consent, pre_checkin_completed_at, pre_checkin_source,
         relationship_to_holder)
       SELECT s.reservation_id, s.position, $1, $2, s.contact_id, s.first_name, s.last_name, s.email, s.phone,
         coalesce(s.is_holder, false), s.pax_type, s.date_of_birth, s.gender, s.nationality, s.document_type,
         s.document_number, nullif(s.address, 'null'::jsonb), s.language, s.email_consent, s.whatsapp_marketing_consent,
         s.pre_checkin_completed_at, s.pre_checkin_source, s.relationship_to_holder
       FROM jsonb_to_recordset($3::jsonb) AS s(reservation_id uuid, position integer, contact_id uuid, first_name text,
         last_name text, email text, phone text, is_holder boolean, pax_type text, date_of_birth date, gender text,
         nationality text, document_type text, document_number text, address jsonb, language text, email_consent boolean,
         whatsapp_marketing_consent boolean, pre_checkin_completed_at timestamptz, pre_checkin_source text,
         relationship_to_holder text)`,
      records
    )
  ])
}

export interface BookingEvent {
  readonly id: string
  readonly type: string
  readonly contact_id: string | null
  readonly hotel_id: string
  readonly reservation_id: string
  readonly source: string
  readonly payload: unknown
}

export const insertEvents = async (tx: Tx, scope: TenantScope, events: ReadonlyArray<BookingEvent>) => {
  if (events.length === 0) return
  await withRecords(
    tx,
    scope,
    `INSERT INTO events (id, tenant_id, sandbox, type, contact_id, hotel_id, reservation_id, source, payload)
     SELECT s.id, $1, $2, s.type, s.contact_id, s.hotel_id, s.reservation_id, s.source, s.payload
     FROM jsonb_to_recordset($3::jsonb) AS s(id uuid, type text, contact_id uuid, hotel_id uuid, reservation_id uuid,
       source text, payload jsonb)`,
    events
  )
}
