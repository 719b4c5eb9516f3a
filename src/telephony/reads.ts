import type { Sql, Tx } from "../../core/db/Database.ts"
import type { CallSummary, ScreenPop } from "../../schemas/telephony.ts"
import { asJson } from "../http/answers.ts"
import { exactTime } from "../http/cursor.ts"
import { type PageRequest, pageOf } from "../http/paging.ts"
import { tierOfEmail } from "../loyalty/tier.ts"

const stay = `r.id AS reservation_id, r.external_id AS external_reservation_id, r.hotel_id, h.name AS hotel_name, r.status,
  to_char(r.check_in, 'YYYY-MM-DD') AS check_in, to_char(r.check_out, 'YYYY-MM-DD') AS check_out`

type Stay = NonNullable<typeof ScreenPop.Type["contact"]>["last_stay"]

/** What an agent's screen shows when the phone rings: who calls, in which language, their last and next stay. */
export const screenPop = async (sql: Sql, tenantId: string, phone: string | undefined): Promise<typeof ScreenPop.Type> => {
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
      id: c.id as string, first_name: c.first_name as string | null, last_name: c.last_name as string | null, language: c.language as string | null,
      email: c.email as string | null,
      // The loyalty tier of the contact's email ({ slug, name }), null when not a member or without tiers.
      tier: await tierOfEmail(sql, tenantId, c.email as string | null),
      last_stay: (last ?? null) as Stay,
      next_stay: (next ?? null) as Stay
    }
  }
}

/** A contact's calls, newest first, keyset-paginated on (time, id) so pages never skip or repeat under inserts. */
export const contactCalls = async (sql: Sql | Tx, contactId: string, page: PageRequest) => {
  const after = page.after
  const rows = await sql`
    SELECT id AS call_record_id, provider, call_id, direction, from_number, to_number, status, answered, outcome,
      started_at, answered_at, ended_at, duration_seconds, agent, recording_url, summary, language,
      transcript IS NOT NULL AS has_transcript, metadata, ${sql.unsafe(exactTime("coalesce(started_at, created_at)"))} AS sort_at,
      created_at, updated_at
    FROM calls
    WHERE contact_id = ${contactId}
      ${after ? sql`AND (coalesce(started_at, created_at), id) < (${after.at}::text::timestamptz, ${after.id}::uuid)` : sql``}
    ORDER BY coalesce(started_at, created_at) DESC, id DESC
    LIMIT ${page.limit + 1}`
  const { shown, next_cursor } = pageOf(rows, page.limit, (c) => ({ at: c.sort_at as string, id: c.call_record_id as string }))
  return {
    // Timestamps as ISO strings, as the JSON answer carries them.
    calls: asJson(shown.map(({ sort_at: _s, ...c }) => c)) as unknown as Array<typeof CallSummary.Type>,
    next_cursor
  }
}
