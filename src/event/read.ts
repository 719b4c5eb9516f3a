import type { Tx } from "../../core/db/Database.ts"
import type { TenantScope } from "../../core/TenantScope.ts"
import type { EventView } from "../../schemas/eventRead.ts"
import { exactTime } from "../http/cursor.ts"
import { type PageRequest, pageOf } from "../http/paging.ts"

// Core events (the event actor) and booking events (the reservation actor) share the `events` table: one read for both.

const EVENT_COLUMNS = `e.id AS event_id, e.type AS event_type, e.status, e.contact_id, e.hotel_id, e.reservation_id, e.source,
  e.idempotency_key, e.payload, e.created_at`

type Row = Record<string, unknown>
const viewOf = ({ cursor_at: _c, ...e }: Row): EventView =>
  ({ ...e, created_at: (e.created_at as Date).toISOString() }) as unknown as EventView

/** One event of the scope by its id, or undefined. */
export const readEvent = async (tx: Tx, scope: TenantScope, eventId: string) => {
  const [row] = await tx`
    SELECT ${tx.unsafe(EVENT_COLUMNS)} FROM events e
    WHERE e.id = ${eventId}::uuid AND e.tenant_id = ${scope.tenant_id} AND e.sandbox = ${scope.sandbox}`
  return row === undefined ? undefined : viewOf(row)
}

export interface EventFilters {
  readonly type?: string | undefined
  readonly contact_id?: string | undefined
  readonly since?: string | undefined
}

/** One page of the scope's events, newest first, keyset-paged on (created_at, id): no skip, no repeat under inserts. */
export const listEvents = async (tx: Tx, scope: TenantScope, f: EventFilters, page: PageRequest) => {
  const none = tx``
  const rows = await tx`
    SELECT ${tx.unsafe(EVENT_COLUMNS)}, ${tx.unsafe(exactTime("e.created_at"))} AS cursor_at
    FROM events e
    WHERE e.tenant_id = ${scope.tenant_id} AND e.sandbox = ${scope.sandbox}
      ${f.type !== undefined ? tx`AND e.type = ${f.type}` : none}
      ${f.contact_id !== undefined ? tx`AND e.contact_id = ${f.contact_id}::uuid` : none}
      ${f.since !== undefined ? tx`AND e.created_at >= ${f.since}::timestamptz` : none}
      ${page.after !== undefined ? tx`AND (e.created_at, e.id) < (${page.after.at}::text::timestamptz, ${page.after.id}::uuid)` : none}
    ORDER BY e.created_at DESC, e.id DESC
    LIMIT ${page.limit + 1}`
  const { shown, next_cursor } = pageOf(rows, page.limit, (e) => ({ at: e.cursor_at as string, id: e.event_id as string }))
  return { events: shown.map(viewOf), next_cursor }
}
