import { type OutcomeRow, outcomesOf } from "../../core/broadcast/reads.ts"
import { countsOf, recipientReason } from "../../core/broadcast/counts.ts"
import { jsonb, type Tx } from "../../core/db/Database.ts"
import { deterministicId } from "../../core/deterministicId.ts"
import type { TenantScope } from "../../core/TenantScope.ts"
import { isUuid } from "../../schemas/common.ts"
import type { BroadcastView, CreateBroadcastRequest, RecipientView } from "../../schemas/broadcastApi.ts"
import { exactTime } from "../http/cursor.ts"
import { type PageRequest, pageOf } from "../http/paging.ts"

// Broadcasts as the API writes (drafts) and reads them, in a transaction confined to the caller's tenant (row-level
// security) and filtered by its mode. Everything past a draft is the broadcast actor's.

const iso = (d: Date | null) => (d === null ? null : d.toISOString())

interface BroadcastRecord {
  id: string
  name: string
  channel: "email" | "whatsapp"
  category: "marketing" | "utility"
  audience: BroadcastView["audience"]
  content: BroadcastView["content"]
  hotel_id: string | null
  send_at_text: string | null
  recipient_local_time: boolean
  rate_limit_per_minute: number | null
  quiet_hours: BroadcastView["quiet_hours"]
  send_deadline_text: string | null
  status: BroadcastView["status"]
  status_reason: string | null
  phase: BroadcastView["phase"]
  version: number
  created_at: Date
  updated_at: Date
  started_at: Date | null
  sent_at: Date | null
  completed_at: Date | null
  cancelled_at: Date | null
  cursor_at: string
}

// send_at and send_deadline in UTC (RFC 3339, `Z`); with recipient_local_time, send_at's wall time as written
// (send_at_local) is what each recipient's zone applies, and is kept apart.
const COLUMNS = `id::text AS id, name, channel, category, audience, content, hotel_id::text AS hotel_id,
  ${exactTime("send_at")} AS send_at_text, recipient_local_time, rate_limit_per_minute, quiet_hours,
  ${exactTime("send_deadline")} AS send_deadline_text, status, status_reason, phase, version, created_at, updated_at,
  started_at, sent_at, completed_at, cancelled_at, ${exactTime("created_at")} AS cursor_at`

const viewOf = (r: BroadcastRecord, outcomes: ReadonlyArray<OutcomeRow>): BroadcastView => ({
  broadcast_id: r.id,
  name: r.name,
  channel: r.channel,
  category: r.category,
  audience: r.audience,
  content: r.content,
  hotel_id: r.hotel_id,
  schedule: r.send_at_text === null ? null : { send_at: r.send_at_text, ...(r.recipient_local_time ? { recipient_local_time: true } : {}) },
  rate_limit_per_minute: r.rate_limit_per_minute,
  quiet_hours: r.quiet_hours,
  send_deadline: r.send_deadline_text,
  status: r.status,
  status_reason: r.status_reason,
  phase: r.phase,
  counts: countsOf(outcomes),
  version: r.version,
  created_at: r.created_at.toISOString(),
  updated_at: r.updated_at.toISOString(),
  started_at: iso(r.started_at),
  sent_at: iso(r.sent_at),
  completed_at: iso(r.completed_at),
  cancelled_at: iso(r.cancelled_at)
})

/** send_at's wall-clock time as written (`2026-12-01T10:00:00+01:00` → `2026-12-01T10:00:00`). */
const wallTime = (dateTime: string) => dateTime.slice(0, 19)

/** The columns a draft's fields decide. */
const columnsOf = (tx: Tx, b: CreateBroadcastRequest) => ({
  name: b.name,
  category: b.category,
  audience: jsonb(tx, b.audience),
  content: jsonb(tx, b.content),
  hotel_id: b.hotel_id ?? null,
  send_at: b.schedule?.send_at ?? null,
  send_at_local: b.schedule === undefined ? null : wallTime(b.schedule.send_at),
  recipient_local_time: b.schedule?.recipient_local_time ?? false,
  rate_limit_per_minute: b.rate_limit_per_minute ?? null,
  quiet_hours: jsonb(tx, b.quiet_hours ?? null),
  send_deadline: b.send_deadline ?? null
})

export const insertBroadcast = async (tx: Tx, scope: TenantScope, namespace: string, id: string, b: CreateBroadcastRequest) => {
  const row = { id, tenant_id: scope.tenant_id, sandbox: scope.sandbox, namespace, channel: b.channel, status: "draft", ...columnsOf(tx, b) }
  await tx`INSERT INTO broadcasts ${tx(row as unknown as Record<string, never>)}`
}

export const saveDraft = async (tx: Tx, id: string, b: CreateBroadcastRequest) => {
  await tx`UPDATE broadcasts SET ${tx(columnsOf(tx, b) as unknown as Record<string, never>)}, version = version + 1, updated_at = now() WHERE id = ${id}`
}

export const readBroadcast = async (tx: Tx, scope: TenantScope, id: string, lock = false): Promise<BroadcastView | undefined> => {
  if (!isUuid(id)) return undefined
  const [row] = await tx.unsafe<Array<BroadcastRecord>>(
    `SELECT ${COLUMNS} FROM broadcasts WHERE id = $1 AND tenant_id = $2 AND sandbox = $3${lock ? " FOR UPDATE" : ""}`,
    [id, scope.tenant_id, scope.sandbox])
  return row === undefined ? undefined : viewOf(row, (await outcomesOf(tx, [row.id])).get(row.id)!)
}

export const listBroadcasts = async (tx: Tx, scope: TenantScope, o: PageRequest) => {
  const rows = await tx.unsafe<Array<BroadcastRecord>>(
    `SELECT ${COLUMNS} FROM broadcasts
     WHERE tenant_id = $1 AND sandbox = $2 AND ($3::text IS NULL OR (created_at, id) < ($3::text::timestamptz, $4::uuid))
     ORDER BY created_at DESC, id DESC LIMIT $5`,
    [scope.tenant_id, scope.sandbox, o.after?.at ?? null, o.after?.id ?? null, o.limit + 1])
  const { shown, next_cursor } = pageOf(rows, o.limit, (r) => ({ at: r.cursor_at, id: r.id }))
  // The page's counts in one statement, not one per broadcast.
  const counts = await outcomesOf(tx, shown.map((r) => r.id))
  return { broadcasts: shown.map((r) => viewOf(r, counts.get(r.id)!)), next_cursor }
}

interface RecipientRecord {
  contact_id: string
  status: RecipientView["status"]
  reason: string | null
  message_id: string | null
  queued_at: Date | null
  updated_at: Date
  cursor_at: string
}

/** A broadcast's recipients as a reader sees them (a queued one takes its message's status), newest first. */
export const listRecipients = async (
  tx: Tx, b: { readonly id: string; readonly channel: string }, status: string | undefined, o: PageRequest
) => {
  const rows = await tx.unsafe<Array<RecipientRecord>>(
    `SELECT * FROM (
       SELECT r.contact_id::text AS contact_id, r.created_at,
         CASE WHEN r.status = 'queued' THEN coalesce(m.status, 'queued') ELSE r.status END AS status,
         coalesce(r.skip_reason, m.skip_reason) AS reason, r.message_id::text AS message_id, r.queued_at,
         greatest(r.created_at, r.queued_at, m.updated_at) AS updated_at, ${exactTime("r.created_at")} AS cursor_at
       FROM broadcast_recipients r LEFT JOIN messages m ON m.id = r.message_id
       WHERE r.broadcast_id = $1 AND ($2::text IS NULL OR (r.created_at, r.contact_id) < ($2::text::timestamptz, $3::uuid))
     ) x WHERE ($4::text IS NULL OR x.status = $4)
     ORDER BY x.created_at DESC, x.contact_id DESC LIMIT $5`,
    [b.id, o.after?.at ?? null, o.after?.id ?? null, status ?? null, o.limit + 1])
  const { shown, next_cursor } = pageOf(rows, o.limit, (r) => ({ at: r.cursor_at, id: r.contact_id }))
  return {
    recipients: shown.map((r): RecipientView => ({
      contact_id: r.contact_id,
      status: r.status,
      skip_reason: r.reason === null ? null : recipientReason(r.reason) as RecipientView["skip_reason"],
      // Known before it is handed over: derived from broadcast, contact and channel.
      message_id: r.message_id ?? deterministicId(`broadcast:${b.id}:${r.contact_id}:${b.channel}`),
      queued_at: iso(r.queued_at),
      updated_at: r.updated_at.toISOString()
    })),
    next_cursor
  }
}

/** The account's cap as set (null: never set, the default applies). */
export const readCapHours = async (tx: Tx, tenantId: string): Promise<number | null> =>
  (await tx<Array<{ marketing_cap_hours: number | null }>>`SELECT marketing_cap_hours FROM tenant_settings WHERE tenant_id = ${tenantId}`)[0]?.marketing_cap_hours ?? null

export const writeCapHours = (tx: Tx, tenantId: string, hours: number | null) =>
  tx`INSERT INTO tenant_settings (tenant_id, marketing_cap_hours) VALUES (${tenantId}, ${hours})
    ON CONFLICT (tenant_id) DO UPDATE SET marketing_cap_hours = excluded.marketing_cap_hours, updated_at = now()`
