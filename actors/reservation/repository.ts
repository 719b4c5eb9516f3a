import { jsonb, type Tx } from "../../core/db/Database.ts"
import type { TenantScope } from "../../core/TenantScope.ts"
import type { GuestInput } from "./protocol.ts"
import type { ReservationRow } from "./state.ts"

// The reservation actor's tables, set-based: each statement carries every reservation of a wave.

const COLUMNS = `external_id, id, hotel_id, confirmation_number, booking_id, to_char(check_in, 'YYYY-MM-DD') AS check_in,
  to_char(check_out, 'YYYY-MM-DD') AS check_out, to_char(booking_date, 'YYYY-MM-DD') AS booking_date, status, source,
  guest_stage, nights, channel, company, amount::float8 AS amount, amount_net::float8 AS amount_net, currency,
  market_segment, agency, agency_code, external_created_at, external_updated_at, comments, metadata, stays, extras, version,
  booking_channel_code, channel_type, room_type, room_number, rate_plan`

const iso = (v: unknown) => (v instanceof Date ? v.toISOString() : (v as string | null))

/** The stored reservations of these partner ids, locked (in id order) until the group commits; by partner id. */
export const findForUpdate = async (tx: Tx, scope: TenantScope, externalIds: ReadonlyArray<string>): Promise<Map<string, ReservationRow>> => {
  const rows = await tx.unsafe(
    `SELECT ${COLUMNS} FROM reservations WHERE tenant_id = $1 AND sandbox = $2 AND external_id = ANY($3::text[])
     ORDER BY external_id FOR UPDATE`,
    [scope.tenant_id, scope.sandbox, externalIds as never]
  )
  return new Map(rows.map(({ external_id, ...row }) => [
    external_id as string,
    { ...row, external_created_at: iso(row.external_created_at), external_updated_at: iso(row.external_updated_at) } as unknown as ReservationRow
  ]))
}

const SAVED = [
  "id", "tenant_id", "sandbox", "external_id", "hotel_id", "confirmation_number", "booking_id", "check_in", "check_out",
  "nights", "booking_date", "status", "guest_stage", "channel", "source", "company", "amount", "amount_net", "currency",
  "market_segment", "agency", "agency_code", "external_created_at", "external_updated_at", "comments", "metadata", "stays",
  "extras", "version", "booking_channel_code", "channel_type", "room_type", "room_number", "rate_plan"
] as const

/** Inserts new reservations and overwrites existing ones with their merged state, in one statement. */
export const save = async (tx: Tx, scope: TenantScope, reservations: ReadonlyArray<{ readonly external_id: string; readonly row: ReservationRow }>) => {
  if (reservations.length === 0) return
  const rows = reservations.map(({ external_id, row: r }) => ({
    ...r, tenant_id: scope.tenant_id, sandbox: scope.sandbox, external_id,
    metadata: jsonb(tx, r.metadata), stays: jsonb(tx, r.stays), extras: jsonb(tx, r.extras)
  }))
  await tx`
    INSERT INTO reservations ${tx(rows, ...SAVED)}
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

/** Replaces the guest lists of these reservations (sent guests are the whole list; an empty list never reaches here). */
export const replaceGuests = async (
  tx: Tx,
  scope: TenantScope,
  lists: ReadonlyArray<{ readonly reservationId: string; readonly guests: ReadonlyArray<GuestInput>; readonly contactIds: ReadonlyArray<string | null> }>
): Promise<void> => {
  if (lists.length === 0) return
  const rows = lists.flatMap(({ reservationId, guests, contactIds }) => guests.map((g, position) => ({
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
  })))
  // Sent together: the connection runs them in order (the delete first), in one round trip.
  await Promise.all([
    tx`DELETE FROM reservation_guests WHERE reservation_id = ANY(${lists.map((l) => l.reservationId)}::uuid[])`,
    tx`INSERT INTO reservation_guests ${tx(rows)}`
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
  const rows = events.map((e) => ({ ...e, tenant_id: scope.tenant_id, sandbox: scope.sandbox, payload: jsonb(tx, e.payload) }))
  await tx`INSERT INTO events ${tx(rows, "id", "tenant_id", "sandbox", "type", "contact_id", "hotel_id", "reservation_id", "source", "payload")}`
}
