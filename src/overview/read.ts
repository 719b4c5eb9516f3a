import type postgres from "postgres"
import type { Sql } from "../../core/db/Database.ts"
import { readAsTenant } from "../../core/db/readAsTenant.ts"
import type { TenantScope } from "../../core/TenantScope.ts"
import type { OverviewDay } from "../../schemas/overviewApi.ts"
import type { OverviewRange } from "./range.ts"

// The overview's counts: one grouped statement per source, sent in one round trip, each an index range scan of the
// tenant's rows in the window (migration 040: tenant, mode, time, with the hotel alongside), merged here by day and
// hotel. Nothing is precomputed: the figures are the rows as they are now (a message's outcome is its status now).

type Key = { day: string; hotel_id: string | null }
type Counted = Key & { n: number }
type MessageCounts = Key & { channel: "email" | "whatsapp"; sent: number; delivered: number; read: number; failed: number; skipped: number }
type WebhookCounts = Key & { succeeded: number; failed: number }

/** The UTC day of a time, grouped on as a date (cheaper than text) and formatted once per group. */
const DAY = (column: string) => `to_char((${column} AT TIME ZONE 'UTC')::date, 'YYYY-MM-DD')`
const DAY_KEY = (column: string) => `(${column} AT TIME ZONE 'UTC')::date`

const statements = (tx: postgres.ReservedSql, scope: TenantScope, r: OverviewRange) => {
  const inScope = (alias: string, time: string) =>
    tx`${tx.unsafe(alias)}.tenant_id = ${scope.tenant_id} AND ${tx.unsafe(alias)}.sandbox = ${scope.sandbox}
      AND ${tx.unsafe(time)} >= ${r.start}::timestamptz AND ${tx.unsafe(time)} < ${r.end}::timestamptz`
  const hotel = (column: string) => r.hotel_id === undefined ? tx`` : tx`AND ${tx.unsafe(column)} = ${r.hotel_id}::uuid`
  return [
    tx`SELECT ${tx.unsafe(DAY("x.created_at"))} AS day, x.hotel_id, count(*)::int AS n FROM reservations x
      WHERE ${inScope("x", "x.created_at")} ${hotel("x.hotel_id")} GROUP BY ${tx.unsafe(DAY_KEY("x.created_at"))}, 2`,
    // Contacts are the account's: the row without a hotel counts those created that day; a hotel's row counts those
    // first linked to it that day (its new guests, new to the account or not).
    tx`${r.hotel_id !== undefined ? tx`` : tx`SELECT ${tx.unsafe(DAY("x.created_at"))} AS day, NULL::uuid AS hotel_id, count(*)::int AS n
        FROM contacts x WHERE ${inScope("x", "x.created_at")} GROUP BY ${tx.unsafe(DAY_KEY("x.created_at"))}
      UNION ALL`}
      SELECT ${tx.unsafe(DAY("x.first_seen_at"))} AS day, x.hotel_id, count(*)::int AS n FROM contact_hotels x
      WHERE ${inScope("x", "x.first_seen_at")} ${hotel("x.hotel_id")} GROUP BY ${tx.unsafe(DAY_KEY("x.first_seen_at"))}, 2`,
    tx`SELECT ${tx.unsafe(DAY("x.started_at"))} AS day, x.hotel_id, count(*)::int AS n FROM journey_runs x
      WHERE ${inScope("x", "x.started_at")} ${hotel("x.hotel_id")} GROUP BY ${tx.unsafe(DAY_KEY("x.started_at"))}, 2`,
    tx`SELECT ${tx.unsafe(DAY("x.created_at"))} AS day, x.hotel_id, x.channel,
        count(*) FILTER (WHERE x.status IN ('sent', 'delivered', 'read'))::int AS sent,
        count(*) FILTER (WHERE x.status IN ('delivered', 'read'))::int AS delivered,
        count(*) FILTER (WHERE x.status = 'read')::int AS read,
        count(*) FILTER (WHERE x.status = 'failed')::int AS failed,
        count(*) FILTER (WHERE x.status = 'skipped')::int AS skipped
      FROM messages x WHERE ${inScope("x", "x.created_at")} AND x.direction = 'outbound'
        AND x.status IN ('sent', 'delivered', 'read', 'failed', 'skipped') ${hotel("x.hotel_id")}
      GROUP BY ${tx.unsafe(DAY_KEY("x.created_at"))}, 2, 3`,
    // Webhook attempts belong to no hotel: left out of one hotel's figures.
    r.hotel_id === undefined
      ? tx`SELECT ${tx.unsafe(DAY("x.attempted_at"))} AS day, NULL::uuid AS hotel_id,
          count(*) FILTER (WHERE x.outcome = 'succeeded')::int AS succeeded,
          count(*) FILTER (WHERE x.outcome IN ('failed', 'gone'))::int AS failed
        FROM webhook_deliveries x WHERE ${inScope("x", "x.attempted_at")} AND x.outcome <> 'skipped' GROUP BY ${tx.unsafe(DAY_KEY("x.attempted_at"))}`
      : tx`SELECT NULL::text AS day WHERE false`
  ] as const
}

const noMessages = () => ({ sent: 0, delivered: 0, read: 0, failed: 0, skipped: 0 })
type Day = { -readonly [K in keyof OverviewDay]: OverviewDay[K] }
const emptyDay = (k: Key): Day => ({
  date: k.day, hotel_id: k.hotel_id, reservations_received: 0, contacts_created: 0, journey_entries: 0,
  messages: { email: noMessages(), whatsapp: noMessages() }, webhooks: { succeeded: 0, failed: 0 }
})

/** The range's days, each hotel with anything to count on it, by date then hotel (the row without a hotel last). */
export const readOverview = async (sql: Sql, scope: TenantScope, r: OverviewRange) => {
  const [reservations, contacts, runs, messages, webhooks] = await readAsTenant(sql, scope.tenant_id, (tx) => statements(tx, scope, r))
  const days = new Map<string, Day>()
  const at = (k: Key): Day => {
    const key = `${k.day}|${k.hotel_id ?? ""}`
    let d = days.get(key)
    if (d === undefined) days.set(key, d = emptyDay(k))
    return d
  }
  for (const x of reservations as unknown as Array<Counted>) at(x).reservations_received = x.n
  for (const x of contacts as unknown as Array<Counted>) at(x).contacts_created = x.n
  for (const x of runs as unknown as Array<Counted>) at(x).journey_entries = x.n
  for (const { day, hotel_id, channel, ...o } of messages as unknown as Array<MessageCounts>) {
    const d = at({ day, hotel_id })
    d.messages = { ...d.messages, [channel]: o }
  }
  for (const { day, hotel_id, ...w } of webhooks as unknown as Array<WebhookCounts>) at({ day, hotel_id }).webhooks = w
  return [...days.values()].sort((a, b) =>
    a.date !== b.date ? (a.date < b.date ? -1 : 1) : a.hotel_id === b.hotel_id ? 0 : a.hotel_id === null ? 1 : b.hotel_id === null ? -1 : a.hotel_id < b.hotel_id ? -1 : 1)
}
