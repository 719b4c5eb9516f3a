import type { Sql } from "../../core/db/Database.ts"
import type { SubscriptionRow } from "../../core/webhook/repository.ts"
import type { DeliveryTrigger } from "./protocol.ts"

export interface DeliveryTarget {
  readonly subscription: SubscriptionRow
  /** Attempts already recorded for this event and subscription: the next attempt's number is one more. */
  readonly previousAttempts: number
}

/**
 * The subscription as it is now (URL, headers, policy and secrets may have changed since the event was fanned out)
 * and how many attempts were made. Counting recorded attempts, not JetStream deliveries, means a redelivery that
 * made no HTTP attempt (the database was away, the worker stopped) never uses up the partner's retries.
 */
export const loadTarget = async (sql: Sql, subscriptionId: string, eventId: string, runId: string | null = null): Promise<DeliveryTarget | undefined> => {
  // A resend or a replay is a run of its own: it gets the whole retry policy, whatever the event's first run used.
  const [row] = await sql<Array<SubscriptionRow & { previous_attempts: number }>>`
    SELECT s.*, (SELECT count(*)::int FROM webhook_deliveries d
                 WHERE d.subscription_id = s.id AND d.event_id = ${eventId} AND d.run_id IS NOT DISTINCT FROM ${runId}
                   AND d.outcome <> 'skipped') AS previous_attempts
    FROM webhook_subscriptions s WHERE s.id = ${subscriptionId}`
  if (!row) return undefined
  const { previous_attempts, ...subscription } = row
  return { subscription, previousAttempts: previous_attempts }
}

export interface AttemptRecord {
  readonly id: string
  readonly subscription: SubscriptionRow
  readonly event_id: string
  readonly event_type: string
  readonly attempt: number
  readonly outcome: "succeeded" | "failed" | "gone" | "skipped"
  readonly response_status: number | null
  readonly error: string | null
  readonly duration_ms: number
  readonly next_attempt_at: Date | null
  readonly trigger: DeliveryTrigger
  readonly run_id: string | null
}

export const recordAttempt = async (sql: Sql, r: AttemptRecord): Promise<void> => {
  await sql`
    INSERT INTO webhook_deliveries (id, subscription_id, tenant_id, sandbox, event_id, event_type, attempt, outcome,
      response_status, error, duration_ms, next_attempt_at, trigger, run_id)
    VALUES (${r.id}, ${r.subscription.id}, ${r.subscription.tenant_id}, ${r.subscription.sandbox}, ${r.event_id},
      ${r.event_type}, ${r.attempt}, ${r.outcome}, ${r.response_status}, ${r.error}, ${r.duration_ms}, ${r.next_attempt_at},
      ${r.trigger}, ${r.run_id})
    ON CONFLICT (id) DO NOTHING`
}

/** A receiver that answered 410 Gone: no further events are fanned out to it until the partner re-enables it. */
export const disableSubscription = async (sql: Sql, subscriptionId: string, reason: string): Promise<void> => {
  await sql`
    UPDATE webhook_subscriptions SET enabled = false, disabled_reason = ${reason}, updated_at = now()
    WHERE id = ${subscriptionId} AND enabled`
}

/** Delivery-log retention (the spec's 14 days) as of `now`, in bounded batches so a large purge never holds long locks. */
export const purgeDeliveryLog = async (sql: Sql, now: Date, retentionDays = 14): Promise<number> => {
  const cutoff = new Date(now.getTime() - retentionDays * 86_400_000)
  let total = 0
  for (;;) {
    const rows = await sql`
      DELETE FROM webhook_deliveries WHERE seq IN (
        SELECT seq FROM webhook_deliveries WHERE attempted_at < ${cutoff} LIMIT 5000)
      RETURNING seq`
    total += rows.length
    if (rows.length < 5000) return total
  }
}
