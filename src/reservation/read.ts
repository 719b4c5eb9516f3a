import { ATTRIBUTION_COLUMNS, type AttributionRow, NO_ATTRIBUTION, toAttribution } from "../../core/b2b/attribution.ts"
import type { Sql, Tx } from "../../core/db/Database.ts"
import type { TenantScope } from "../../core/TenantScope.ts"
import type { Attribution } from "../../schemas/b2b.ts"
import { isUuid } from "../../schemas/common.ts"
import type { ExtraView, ReservationView, StayView } from "../../schemas/reservationRead.ts"

// One stored reservation with its guests, stays, extras and B2B attribution, as the single read and every list item
// show it: rows are read in one statement per table for a whole page (never one query per item).

/** The columns of `reservations r` a read shows. */
export const RESERVATION_COLUMNS = `r.id AS reservation_id, r.external_id AS external_reservation_id, r.hotel_id, r.confirmation_number,
  r.booking_id, to_char(r.check_in, 'YYYY-MM-DD') AS check_in, to_char(r.check_out, 'YYYY-MM-DD') AS check_out, r.nights,
  to_char(r.booking_date, 'YYYY-MM-DD') AS booking_date, r.status, r.guest_stage, r.channel, r.source, r.company,
  r.amount::float8 AS amount, r.amount_net::float8 AS amount_net, r.currency, r.market_segment, r.agency, r.agency_code,
  r.external_created_at, r.external_updated_at, r.comments, r.metadata, r.stays, r.extras, r.version, r.booking_channel_code,
  r.channel_type, r.room_type, r.room_number, r.rate_plan, r.created_at, r.updated_at`

const GUEST_COLUMNS = `g.reservation_id, g.contact_id, g.first_name, g.last_name, g.email, g.phone, g.is_holder, g.pax_type,
  to_char(g.date_of_birth, 'YYYY-MM-DD') AS date_of_birth, g.gender, g.nationality, g.document_type, g.document_number,
  g.address, g.language, g.email_consent, g.whatsapp_marketing_consent, g.pre_checkin_completed_at, g.pre_checkin_source,
  g.relationship_to_holder`

type Row = Record<string, unknown>

const iso = (value: unknown): string | null => (value instanceof Date ? value.toISOString() : (value as string | null) ?? null)
const orNull = <A>(value: A | undefined): A | null => value ?? null

// Stays and extras are stored as the partner sent them (absent keys absent): read, every key is there, null when unsent.
const stayOf = (s: Partial<Record<keyof StayView, unknown>>): StayView => ({
  start_date: s.start_date as string, end_date: s.end_date as string,
  room_type: orNull(s.room_type as string | null), room_number: orNull(s.room_number as string | null),
  board_type: orNull(s.board_type as string | null), rate_code: orNull(s.rate_code as string | null),
  adults: orNull(s.adults as number | null), children: orNull(s.children as number | null), babies: orNull(s.babies as number | null)
})
const extraOf = (e: Partial<Record<keyof ExtraView, unknown>>): ExtraView => ({
  name: e.name as string, amount: e.amount as number, code: orNull(e.code as string | null),
  quantity: orNull(e.quantity as number | null), date: orNull(e.date as string | null), notes: orNull(e.notes as string | null)
})

const guestOf = ({ reservation_id: _r, ...g }: Row) =>
  ({ ...g, pre_checkin_completed_at: iso(g.pre_checkin_completed_at) }) as unknown as ReservationView["guests"][number]

const viewOf = (r: Row, guests: ReservationView["guests"], attribution: Attribution): ReservationView => ({
  ...(r as unknown as ReservationView),
  external_created_at: iso(r.external_created_at),
  external_updated_at: iso(r.external_updated_at),
  created_at: iso(r.created_at)!,
  updated_at: iso(r.updated_at)!,
  stays: (r.stays as Array<Row>).map(stayOf),
  extras: (r.extras as Array<Row>).map(extraOf),
  guests,
  attribution
})

/** The reservation rows (RESERVATION_COLUMNS) completed with their guests and attributions, in the rows' order. */
export const withDetails = async (sql: Sql | Tx, rows: ReadonlyArray<Row>): Promise<Array<ReservationView>> => {
  if (rows.length === 0) return []
  const ids = rows.map((r) => r.reservation_id as string)
  const [guests, attributions] = await Promise.all([
    sql.unsafe(`SELECT ${GUEST_COLUMNS} FROM reservation_guests g WHERE g.reservation_id = ANY($1::uuid[]) ORDER BY g.reservation_id, g.position`, [ids]),
    sql.unsafe(`SELECT t.reservation_id, ${ATTRIBUTION_COLUMNS} FROM b2b_attributions t WHERE t.reservation_id = ANY($1::uuid[])`, [ids])
  ])
  const guestsOf = Map.groupBy(guests, (g) => g.reservation_id as string)
  const attributionOf = new Map(attributions.map((a) => [a.reservation_id as string, toAttribution(a as unknown as AttributionRow)]))
  return rows.map((r) => {
    const id = r.reservation_id as string
    return viewOf(r, (guestsOf.get(id) ?? []).map(guestOf), attributionOf.get(id) ?? NO_ATTRIBUTION)
  })
}

/**
 * A reservation by `id`: our UUID (what `POST /api/v1/reservations` answers) or the partner's reservation_id. A
 * UUID-shaped partner id that is also one of our ids names ours; `byExternal` reads the partner's id only.
 */
export const readReservation = async (sql: Sql | Tx, scope: TenantScope, id: string, byExternal = false) => {
  const ours = !byExternal && isUuid(id)
  const [row] = await sql`
    SELECT ${sql.unsafe(RESERVATION_COLUMNS)} FROM reservations r
    WHERE r.tenant_id = ${scope.tenant_id} AND r.sandbox = ${scope.sandbox}
      AND ${ours ? sql`(r.id = ${id}::uuid OR r.external_id = ${id})` : sql`r.external_id = ${id}`}
    ORDER BY ${ours ? sql`r.id = ${id}::uuid DESC` : sql`r.id`}
    LIMIT 1`
  if (!row) return undefined
  const [view] = await withDetails(sql, [row])
  return view
}
