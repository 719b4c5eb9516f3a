import type { Sql, Tx } from "../../core/db/Database.ts"
import { decodeCursor, encodeCursor, exactTime } from "../http/cursor.ts"
import { tierOfEmail } from "../loyalty/tier.ts"

const stay = `r.id AS reservation_id, r.external_id AS external_reservation_id, r.hotel_id, h.name AS hotel_name, r.status,
  to_char(r.check_in, 'YYYY-MM-DD') AS check_in, to_char(r.check_out, 'YYYY-MM-DD') AS check_out`

/** What an agent's screen shows when the phone rings: who calls, in which language, their last and next stay. */
export const screenPop = async (sql: Sql, tenantId: string, phone: string | undefined) => {
  if (phone === undefined) return { matched: false, contact: null }
  const [c] = await sql`
    SELECT id, first_name, last_name, language, email FROM contacts WHERE tenant_id = ${tenantId} AND sandbox = false AND phone = ${phone}`
  if (!c) return { matched: false, contact: null }
  const [last] = await sql.unsafe(
    `SELECT ${stay} FROM reservation_guests g JOIN reservations r ON r.id = g.reservation_id JOIN hotels h ON h.id = r.hotel_id
     WHERE g.contact_id = $1 AND r.check_out <= current_date AND r.status NOT IN ('cancelled', 'no_show')
     ORDER BY r.check_out DESC LIMIT 1`, [c.id as string])
  const [next] = await sql.unsafe(
    `SELECT ${stay} FROM reservation_guests g JOIN reservations r ON r.id = g.reservation_id JOIN hotels h ON h.id = r.hotel_id
     WHERE g.contact_id = $1 AND r.check_out > current_date AND r.status NOT IN ('cancelled', 'no_show')
     ORDER BY r.check_in ASC LIMIT 1`, [c.id as string])
  return {
    matched: true,
    contact: {
      id: c.id, first_name: c.first_name, last_name: c.last_name, language: c.language, email: c.email,
      // The loyalty tier of the contact's email ({ slug, name }), null when not a member or without tiers.
      tier: await tierOfEmail(sql, tenantId, c.email as string | null),
      last_stay: last ?? null,
      next_stay: next ?? null
    }
  }
}

/** A contact's calls, newest first, keyset-paginated on (time, id) so pages never skip or repeat under inserts. */
export const contactCalls = async (sql: Sql | Tx, contactId: string, cursor: string | undefined, limit: number) => {
  const after = cursor === undefined ? undefined : decodeCursor(cursor)
  if (cursor !== undefined && after === undefined) return { error: "cursor" as const }
  const rows = await sql`
    SELECT id AS call_record_id, provider, call_id, direction, from_number, to_number, status, answered, outcome,
      started_at, answered_at, ended_at, duration_seconds, agent, recording_url, summary, language,
      transcript IS NOT NULL AS has_transcript, metadata, ${sql.unsafe(exactTime("coalesce(started_at, created_at)"))} AS sort_at,
      created_at, updated_at
    FROM calls
    WHERE contact_id = ${contactId}
      ${after ? sql`AND (coalesce(started_at, created_at), id) < (${after.at}::text::timestamptz, ${after.id}::uuid)` : sql``}
    ORDER BY coalesce(started_at, created_at) DESC, id DESC
    LIMIT ${limit + 1}`
  const page = rows.slice(0, limit)
  const last = page[page.length - 1]
  return {
    calls: page.map(({ sort_at: _s, ...c }) => c),
    next_cursor: rows.length > limit && last ? encodeCursor(last.sort_at as string, last.call_record_id as string) : null
  }
}
