import type { Tx } from "../../core/db/Database.ts"
import type { TenantScope } from "../../core/TenantScope.ts"
import type { StoredMessage } from "../../schemas/message.ts"
import { exactTime } from "../http/cursor.ts"
import { type PageRequest, pageOf } from "../http/paging.ts"
import { isUuid } from "../../schemas/common.ts"
import { errorMeaning } from "../../core/message/errorMeanings.ts"

// Reads of messages and conversations, in a transaction confined to the caller's tenant (row-level security) and
// filtered by its mode.

const iso = (d: Date | null) => (d === null ? null : d.toISOString())

export interface MessageRecord {
  id: string
  contact_id: string
  conversation_id: string | null
  channel: string
  direction: "outbound" | "inbound"
  category: string | null
  origin: string
  status: string
  skip_reason: string | null
  hotel_id: string | null
  to_address: string | null
  from_address: string | null
  template_name: string | null
  template_language: string | null
  template_parameters: Array<string> | null
  subject: string | null
  body_text: string | null
  body_html: string | null
  provider_message_id: string | null
  error_code: string | null
  error_message: string | null
  attempts: number
  journey_run_id: string | null
  journey_id: string | null
  broadcast_id: string | null
  step_id: string | null
  created_at: Date
  sent_at: Date | null
  delivered_at: Date | null
  read_at: Date | null
  failed_at: Date | null
}

/** A message row's columns, read from `messages` (unaliased); its run's journey looked up by the run's primary key. */
export const COLUMNS = `id, contact_id, conversation_id, channel, direction, category, origin, status, skip_reason, hotel_id, to_address,
  from_address, template_name, template_language, template_parameters, subject, body_text, body_html, provider_message_id,
  error_code, error_message, attempts, journey_run_id, broadcast_id, step_id, created_at, sent_at, delivered_at, read_at, failed_at,
  (SELECT r.journey_id FROM journey_runs r WHERE r.id = messages.journey_run_id) AS journey_id`

/** The rows as the API shows them, each with its status history (one query for the page). */
export const withHistory = async (tx: Tx, rows: ReadonlyArray<MessageRecord>): Promise<Array<StoredMessage>> => {
  const history = rows.length === 0 ? [] : await tx<Array<{ message_id: string; status: string; occurred_at: Date; applied: boolean; error_code: string | null }>>`
    SELECT message_id, status, occurred_at, applied, error_code FROM message_statuses
    WHERE message_id = ANY(${rows.map((r) => r.id)}::uuid[]) ORDER BY id`
  return rows.map((m) => ({
    id: m.id,
    message_id: m.id,
    contact_id: m.contact_id,
    conversation_id: m.conversation_id,
    channel: m.channel,
    direction: m.direction,
    category: m.category,
    origin: m.origin,
    status: m.status,
    skip_reason: m.skip_reason,
    hotel_id: m.hotel_id,
    to: m.to_address,
    from: m.from_address,
    template: m.template_name === null ? null : { name: m.template_name, language: m.template_language ?? "", parameters: m.template_parameters ?? [] },
    subject: m.subject,
    text: m.body_text,
    html: m.body_html,
    provider_message_id: m.provider_message_id,
    error: m.error_code === null && m.error_message === null
      ? null
      : { code: m.error_code, message: m.error_message, meaning: errorMeaning(m.channel, m.error_code, m.error_message) },
    attempts: m.attempts,
    journey_run_id: m.journey_run_id,
    run_id: m.journey_run_id,
    journey_id: m.journey_id,
    broadcast_id: m.broadcast_id,
    step_id: m.step_id,
    created_at: m.created_at.toISOString(),
    sent_at: iso(m.sent_at),
    delivered_at: iso(m.delivered_at),
    read_at: iso(m.read_at),
    failed_at: iso(m.failed_at),
    statuses: history.filter((h) => h.message_id === m.id).map((h) => ({
      status: h.status, occurred_at: h.occurred_at.toISOString(), at: h.occurred_at.toISOString(), applied: h.applied, error_code: h.error_code
    }))
  }))
}

export const contactExists = async (tx: Tx, scope: TenantScope, id: string): Promise<boolean> =>
  isUuid(id) &&
  (await tx`SELECT 1 FROM contacts WHERE id = ${id} AND tenant_id = ${scope.tenant_id} AND sandbox = ${scope.sandbox}`).length > 0

/** A contact's messages, newest first, keyset-paginated on (created_at, id). */
export const contactMessages = async (tx: Tx, contactId: string, o: PageRequest & { readonly channel?: string | undefined }) => {
  const after = o.after
  const rows = await tx.unsafe<Array<MessageRecord & { cursor_at: string }>>(
    `SELECT ${COLUMNS}, ${exactTime("created_at")} AS cursor_at FROM messages WHERE contact_id = $1
       AND ($2::text IS NULL OR channel = $2)
       AND ($3::text IS NULL OR (created_at, id) < ($3::text::timestamptz, $4::uuid))
     ORDER BY created_at DESC, id DESC LIMIT $5`,
    [contactId, o.channel ?? null, after?.at ?? null, after?.id ?? null, o.limit + 1])
  const { shown, next_cursor } = pageOf(rows, o.limit, (r) => ({ at: r.cursor_at, id: r.id }))
  return { messages: await withHistory(tx, shown), next_cursor }
}

/** One conversation of the caller's tenant and mode, without its messages; undefined when there is none. */
export const conversationHeader = async (tx: Tx, scope: TenantScope, id: string) => {
  if (!isUuid(id)) return undefined
  const [c] = await tx<Array<{
    id: string; contact_id: string; channel: string; status: "open" | "closed"; opened_by: "inbound" | "outbound"; opened_at: Date
    last_message_at: Date; last_inbound_at: Date | null; closed_at: Date | null; closed_reason: string | null
  }>>`SELECT id, contact_id, channel, status, opened_by, opened_at, last_message_at, last_inbound_at, closed_at, closed_reason
    FROM conversations WHERE id = ${id} AND tenant_id = ${scope.tenant_id} AND sandbox = ${scope.sandbox}`
  if (!c) return undefined
  const windowEnd = c.channel === "whatsapp" && c.last_inbound_at !== null && c.status === "open"
    ? new Date(c.last_inbound_at.getTime() + 24 * 3600 * 1000) : null
  return {
    id: c.id,
    contact_id: c.contact_id,
    channel: c.channel,
    status: c.status,
    opened_by: c.opened_by,
    opened_at: c.opened_at.toISOString(),
    last_message_at: c.last_message_at.toISOString(),
    last_inbound_at: iso(c.last_inbound_at),
    service_window_open_until: windowEnd !== null && windowEnd.getTime() > Date.now() ? windowEnd.toISOString() : null,
    closed_at: iso(c.closed_at),
    closed_reason: c.closed_reason
  }
}

/** One conversation with its messages in order; undefined when there is none. */
export const conversation = async (tx: Tx, scope: TenantScope, id: string) => {
  const header = await conversationHeader(tx, scope, id)
  if (header === undefined) return undefined
  const rows = await tx.unsafe<Array<MessageRecord>>(`SELECT ${COLUMNS} FROM messages WHERE conversation_id = $1 ORDER BY created_at, id`, [id])
  return { ...header, messages: await withHistory(tx, rows) }
}
