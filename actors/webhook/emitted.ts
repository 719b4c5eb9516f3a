import type { Sql } from "../../core/db/Database.ts"
import { contactOf } from "../../core/webhook/objectKey.ts"
import type { DeliveryJob } from "./job.ts"

/**
 * The bodies emitted to each subscription, written by the fan-out before it publishes the jobs (a command redelivered
 * after a crash writes nothing twice), read by resend and replay, kept 14 days.
 */
export const recordEmitted = async (sql: Sql, jobs: ReadonlyArray<DeliveryJob>): Promise<void> => {
  if (jobs.length === 0) return
  await sql`
    INSERT INTO webhook_events ${sql(jobs.map((j) => ({
      subscription_id: j.subscription_id, event_id: j.event_id, tenant_id: j.tenant_id, sandbox: j.sandbox,
      event_type: j.event_type, body: j.body, contact_id: contactOf((JSON.parse(j.body) as { data?: unknown }).data)
    })), "subscription_id", "event_id", "tenant_id", "sandbox", "event_type", "body", "contact_id")}
    ON CONFLICT DO NOTHING`
}

export interface EmittedEvent {
  readonly event_id: string
  readonly event_type: string
  readonly body: string
  /** The exact time as PostgreSQL text (microseconds: a Date would round it and repeat rows across pages). */
  readonly at: string
}

/** One page of a subscription's emitted events in a window, oldest first, after the (at, event_id) given. */
export const emittedPage = (
  sql: Sql, subscriptionId: string,
  window: { readonly since: string; readonly until: string; readonly event_types: ReadonlyArray<string> | null },
  after: { readonly at: string; readonly id: string } | undefined, limit: number
) => sql<Array<EmittedEvent>>`
  SELECT event_id, event_type, body, emitted_at::text AS at FROM webhook_events
  WHERE subscription_id = ${subscriptionId} AND emitted_at >= ${window.since} AND emitted_at < ${window.until}
    ${window.event_types === null ? sql`` : sql`AND event_type = ANY(${window.event_types as Array<string>})`}
    ${after === undefined ? sql`` : sql`AND (emitted_at, event_id) > (${after.at}::timestamptz, ${after.id})`}
  ORDER BY emitted_at, event_id LIMIT ${limit}`

export const emittedEvent = async (sql: Sql, subscriptionId: string, eventId: string): Promise<EmittedEvent | undefined> => {
  const [row] = await sql<Array<EmittedEvent>>`
    SELECT event_id, event_type, body, emitted_at::text AS at FROM webhook_events WHERE subscription_id = ${subscriptionId} AND event_id = ${eventId}`
  return row
}
