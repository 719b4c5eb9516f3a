import type { Tx } from "../../core/db/Database.ts"
import type { TenantScope } from "../../core/TenantScope.ts"
import type { ReservationStatus } from "../../schemas/reservation.ts"
import { exactTime } from "../http/cursor.ts"
import { type PageRequest, pageOf } from "../http/paging.ts"
import { RESERVATION_COLUMNS, withDetails } from "./read.ts"

/** The filters of `GET /api/v1/reservations`, already checked by the route's query schema. */
export interface ReservationFilters {
  readonly hotel_id?: string | undefined
  readonly status?: ReservationStatus | undefined
  readonly check_in_from?: string | undefined
  readonly check_in_to?: string | undefined
  readonly updated_since?: string | undefined
  readonly contact_id?: string | undefined
}

/**
 * One page of the scope's reservations, newest `updated_at` first, keyset-paged on (updated_at, id) so a page never
 * skips or repeats a row while others are written. Indexes (migration 026) serve the order alone, by hotel and by
 * status; the check-in range and the contact narrow through their own indexes.
 */
export const listReservations = async (tx: Tx, scope: TenantScope, f: ReservationFilters, page: PageRequest) => {
  const none = tx``
  const rows = await tx`
    SELECT ${tx.unsafe(RESERVATION_COLUMNS)}, ${tx.unsafe(exactTime("r.updated_at"))} AS cursor_at
    FROM reservations r
    WHERE r.tenant_id = ${scope.tenant_id} AND r.sandbox = ${scope.sandbox}
      ${f.hotel_id !== undefined ? tx`AND r.hotel_id = ${f.hotel_id}::uuid` : none}
      ${f.status !== undefined ? tx`AND r.status = ${f.status}` : none}
      ${f.check_in_from !== undefined ? tx`AND r.check_in >= ${f.check_in_from}::date` : none}
      ${f.check_in_to !== undefined ? tx`AND r.check_in <= ${f.check_in_to}::date` : none}
      ${f.updated_since !== undefined ? tx`AND r.updated_at >= ${f.updated_since}::timestamptz` : none}
      ${f.contact_id !== undefined
        ? tx`AND r.id IN (SELECT g.reservation_id FROM reservation_guests g
            WHERE g.contact_id = ${f.contact_id}::uuid AND g.tenant_id = ${scope.tenant_id} AND g.sandbox = ${scope.sandbox})`
        : none}
      ${page.after !== undefined ? tx`AND (r.updated_at, r.id) < (${page.after.at}::text::timestamptz, ${page.after.id}::uuid)` : none}
    ORDER BY r.updated_at DESC, r.id DESC
    LIMIT ${page.limit + 1}`
  const { shown, next_cursor } = pageOf(rows, page.limit, (r) => ({ at: r.cursor_at as string, id: r.reservation_id as string }))
  return { reservations: await withDetails(tx, shown.map(({ cursor_at: _c, ...r }) => r)), next_cursor }
}
