import type { Sql } from "../../core/db/Database.ts"
import type { DeliveryAttempt } from "../../schemas/webhook.ts"
import { exactTime } from "../http/cursor.ts"
import { type PageRequest, pageOf } from "../http/paging.ts"

interface DeliveryRow extends Omit<DeliveryAttempt, "next_attempt_at" | "attempted_at"> {
  readonly next_attempt_at: Date | null
  readonly attempted_at: Date
  readonly at: string
}

/** One page of a subscription's delivery log, newest first, keyset (attempted_at, id) in the one list shape. */
export const deliveryPage = async (sql: Sql, subscriptionId: string, page: PageRequest) => {
  const rows = await sql<Array<DeliveryRow>>`
    SELECT id, event_id, event_type, attempt, outcome, trigger, response_status, error, duration_ms, next_attempt_at,
      attempted_at, ${sql.unsafe(exactTime("attempted_at"))} AS at
    FROM webhook_deliveries
    WHERE subscription_id = ${subscriptionId}
      ${page.after === undefined ? sql`` : sql`AND (attempted_at, id) < (${page.after.at}::text::timestamptz, ${page.after.id}::uuid)`}
    ORDER BY attempted_at DESC, id DESC LIMIT ${page.limit + 1}`
  const { shown, next_cursor } = pageOf(rows, page.limit, (d) => ({ at: d.at, id: d.id }))
  return {
    deliveries: shown.map(({ at: _, ...d }): DeliveryAttempt => ({
      ...d,
      next_attempt_at: d.next_attempt_at?.toISOString() ?? null,
      attempted_at: d.attempted_at.toISOString()
    })),
    next_cursor
  }
}
