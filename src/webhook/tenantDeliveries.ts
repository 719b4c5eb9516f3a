import { Effect } from "effect"
import type { Sql } from "../../core/db/Database.ts"
import type { TenantScope } from "../../core/TenantScope.ts"
import { isUuid } from "../../schemas/common.ts"
import type { TenantDeliveryAttempt } from "../../schemas/webhook.ts"
import { exactTime } from "../http/cursor.ts"
import { type PageRequest, pageOf, refused } from "../http/paging.ts"
import { timeWindow } from "../http/timeWindow.ts"

// GET /api/v1/webhook-deliveries: every subscription's delivery log of the caller's tenant and mode in one list.

const OUTCOMES = ["succeeded", "failed", "gone", "skipped"]

export interface TenantDeliveryQuery {
  readonly webhook_id?: string | undefined
  readonly event_type?: string | undefined
  readonly status?: string | undefined
  readonly contact_id?: string | undefined
  readonly from?: string | undefined
  readonly to?: string | undefined
}

/** Each filter checked, or 400 naming the first one at fault. */
export const deliveryFilters = Effect.fn("WebhookDeliveries.filters")(function*(q: TenantDeliveryQuery) {
  if (q.webhook_id !== undefined && !isUuid(q.webhook_id)) return yield* refused("webhook_id", "must be a UUID")
  if (q.contact_id !== undefined && !isUuid(q.contact_id)) return yield* refused("contact_id", "must be a UUID")
  if (q.status !== undefined && !OUTCOMES.includes(q.status)) return yield* refused("status", `must be one of: ${OUTCOMES.join(", ")}`)
  if (q.event_type !== undefined && (q.event_type.length === 0 || q.event_type.length > 100)) return yield* refused("event_type", "must be 1 to 100 characters")
  const window = yield* timeWindow(q)
  return {
    webhook_id: q.webhook_id?.toLowerCase(), contact_id: q.contact_id?.toLowerCase(), status: q.status, event_type: q.event_type,
    from: window.from, to: window.to
  }
})
export type DeliveryFilters = Effect.Success<ReturnType<typeof deliveryFilters>>

interface Row {
  readonly id: string
  readonly webhook_id: string
  readonly url: string
  readonly event_id: string
  readonly event_type: string
  readonly contact_id: string | null
  readonly attempt: number
  readonly outcome: TenantDeliveryAttempt["outcome"]
  readonly trigger: TenantDeliveryAttempt["trigger"]
  readonly response_status: number | null
  readonly error: string | null
  readonly duration_ms: number
  readonly next_attempt_at: Date | null
  readonly attempted_at: Date
  readonly at: string
  readonly last_attempt: { attempt: number; outcome: TenantDeliveryAttempt["outcome"]; trigger: TenantDeliveryAttempt["trigger"]; response_status: number | null; error: string | null; attempted_at: string }
}

/**
 * One page of the tenant's delivery attempts, newest first, keyset (attempted_at, id) on `webhook_deliveries_tenant`
 * (migration 040). Each attempt carries its subscription's URL, the contact its event is about (kept with the body),
 * and the newest attempt of the same event to that subscription: whether a failure was since retried, resent or not.
 */
export const tenantDeliveryPage = async (sql: Sql, scope: TenantScope, f: DeliveryFilters, page: PageRequest) => {
  const after = page.after
  const rows = await sql<Array<Row>>`
    SELECT d.id, d.subscription_id AS webhook_id, s.url, d.event_id, d.event_type, e.contact_id, d.attempt, d.outcome, d.trigger,
      d.response_status, d.error, d.duration_ms, d.next_attempt_at, d.attempted_at, ${sql.unsafe(exactTime("d.attempted_at"))} AS at,
      l.last_attempt
    FROM webhook_deliveries d
    JOIN webhook_subscriptions s ON s.id = d.subscription_id
    LEFT JOIN webhook_events e ON e.subscription_id = d.subscription_id AND e.event_id = d.event_id
    CROSS JOIN LATERAL (
      SELECT jsonb_build_object('attempt', n.attempt, 'outcome', n.outcome, 'trigger', n.trigger, 'response_status', n.response_status,
        'error', n.error, 'attempted_at', to_char(n.attempted_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')) AS last_attempt
      FROM webhook_deliveries n WHERE n.subscription_id = d.subscription_id AND n.event_id = d.event_id
      ORDER BY n.attempted_at DESC, n.seq DESC LIMIT 1) l
    WHERE d.tenant_id = ${scope.tenant_id} AND d.sandbox = ${scope.sandbox}
      ${f.webhook_id === undefined ? sql`` : sql`AND d.subscription_id = ${f.webhook_id}::uuid`}
      ${f.event_type === undefined ? sql`` : sql`AND d.event_type = ${f.event_type}`}
      ${f.status === undefined ? sql`` : sql`AND d.outcome = ${f.status}`}
      ${f.contact_id === undefined ? sql`` : sql`AND (d.subscription_id, d.event_id) IN (SELECT c.subscription_id, c.event_id FROM webhook_events c
        WHERE c.tenant_id = ${scope.tenant_id} AND c.sandbox = ${scope.sandbox} AND c.contact_id = ${f.contact_id}::uuid)`}
      ${f.from === undefined ? sql`` : sql`AND d.attempted_at >= ${f.from}::timestamptz`}
      ${f.to === undefined ? sql`` : sql`AND d.attempted_at < ${f.to}::timestamptz`}
      ${after === undefined ? sql`` : sql`AND (d.attempted_at, d.id) < (${after.at}::text::timestamptz, ${after.id}::uuid)`}
    ORDER BY d.attempted_at DESC, d.id DESC LIMIT ${page.limit + 1}`
  const { shown, next_cursor } = pageOf(rows, page.limit, (d) => ({ at: d.at, id: d.id }))
  return {
    deliveries: shown.map(({ at: _, ...d }): TenantDeliveryAttempt => ({
      ...d,
      next_attempt_at: d.next_attempt_at?.toISOString() ?? null,
      attempted_at: d.attempted_at.toISOString()
    })),
    next_cursor
  }
}
