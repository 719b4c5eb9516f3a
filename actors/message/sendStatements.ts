import { PREPARED, withRecords } from "../../core/db/Database.ts"
import type { CustomFieldDef } from "../../core/segment/catalog.ts"
import type { MessageChannel } from "../../schemas/message.ts"
import { groupBatched } from "../runtime/groupBatch.ts"
import { type BroadcastForSend, customFieldDefinitions } from "./broadcastRepository.ts"
import {
  channelSetup, type ContactForSend, type ConversationRow, MESSAGE_EVENT_COLUMNS, type MessageRow, type NewMessage
} from "./repository.ts"

// The sender's statements, each one multi-row statement for all the sends of a wave that ask it in the same turn
// (runtime/groupBatch.ts): a wave of n sends makes each step's statement once instead of n times. Fixed texts,
// prepared; every statement under the tenant's row-level security with the tenant filtered explicitly, as everywhere.
// Each answers one value per input, in order.

const byKey = <R, K>(rows: ReadonlyArray<R>, key: (r: R) => K) => new Map(rows.map((r) => [key(r), r] as const))

/** Messages already recorded under these ids (a retried command answers what was recorded). */
export const findMessages = groupBatched("MessageSend.findMessages", async (tx, _scope, ids: ReadonlyArray<string>) => {
  const rows = await tx.unsafe<Array<MessageRow>>(`SELECT ${MESSAGE_EVENT_COLUMNS} FROM messages WHERE id = ANY($1::uuid[])`, [ids as never], PREPARED)
  const found = byKey(rows, (r) => r.id)
  return ids.map((id) => found.get(id))
})

export const loadRecipients = groupBatched("MessageSend.loadRecipients", async (tx, scope, ids: ReadonlyArray<string>) => {
  const rows = await tx.unsafe<Array<ContactForSend>>(
    `SELECT id, email, phone, first_name, last_name, email_consent, whatsapp_marketing_consent, email_opted_out_at,
       whatsapp_opted_out_at
     FROM contacts WHERE id = ANY($3::uuid[]) AND tenant_id = $1 AND sandbox = $2`,
    [scope.tenant_id, scope.sandbox, ids as never], PREPARED
  )
  const found = byKey(rows, (r) => r.id)
  return ids.map((id) => found.get(id))
})

/** The channel's setup, read once per channel the wave sends on. */
export const channelSetups = groupBatched("MessageSend.channelSetups", async (tx, scope, channels: ReadonlyArray<MessageChannel>) => {
  const distinct = [...new Set(channels)]
  const setups = new Map(await Promise.all(distinct.map(async (c) => [c, await channelSetup(tx, scope, c)] as const)))
  return channels.map((c) => setups.get(c)!)
})

/** Whether each hotel id is one of the tenant's. */
export const hotelsOfTenant = groupBatched("MessageSend.hotelsOfTenant", async (tx, scope, ids: ReadonlyArray<string>) => {
  const rows = await tx.unsafe<Array<{ id: string }>>(`SELECT id FROM hotels WHERE id = ANY($2::uuid[]) AND tenant_id = $1`,
    [scope.tenant_id, [...new Set(ids)] as never], PREPARED)
  const known = new Set(rows.map((r) => r.id))
  return ids.map((id) => known.has(id))
})

/** The account's custom field definitions in this mode, read once for the wave. */
export const customFields = groupBatched("MessageSend.customFields", async (tx, scope, asks: ReadonlyArray<void>) => {
  const fields = await customFieldDefinitions(tx, scope)
  return asks.map((): ReadonlyArray<CustomFieldDef> => fields)
})

/** Each broadcast as its recipient's message is decided on (see BroadcastForSend), with the recipient row's zone. */
export const loadBroadcastsForSend = groupBatched(
  "MessageSend.loadBroadcastsForSend",
  async (tx, scope, asks: ReadonlyArray<{ readonly broadcast_id: string; readonly contact_id: string }>) => {
    const rows = await withRecords(tx, scope,
      `SELECT x.i, b.status, b.channel, b.category, b.definition, b.exclusions, b.send_deadline, b.quiet_hours,
         coalesce(r.time_zone, h.timezone) AS time_zone, s.marketing_cap_hours
       FROM jsonb_to_recordset($3::jsonb) AS x(i int, broadcast_id uuid, contact_id uuid)
       JOIN broadcasts b ON b.id = x.broadcast_id AND b.tenant_id = $1 AND b.sandbox = $2
       LEFT JOIN broadcast_recipients r ON r.broadcast_id = b.id AND r.contact_id = x.contact_id
       LEFT JOIN hotels h ON h.id = b.hotel_id AND h.tenant_id = b.tenant_id
       LEFT JOIN tenant_settings s ON s.tenant_id = b.tenant_id`,
      asks.map((a, i) => ({ i, ...a })))
    const found = byKey(rows as unknown as Array<BroadcastForSend & { i: number }>, (r) => r.i)
    return asks.map((_, i): BroadcastForSend | undefined => {
      const row = found.get(i)
      if (row === undefined) return undefined
      const { i: _i, ...broadcast } = row
      return broadcast
    })
  }
)

export interface SuppressionAsk {
  readonly channel: MessageChannel
  readonly address: string | null
  /** Keyed hashes of the contact's identifiers (core/privacy): the privacy suppressions hold no plain value. */
  readonly hashes: ReadonlyArray<Buffer>
}

/**
 * Whether a send may not reach its contact: a privacy request suppressed one of the contact's identifiers, or the
 * channel's address is suppressed (a hard bounce, a number not on WhatsApp). The privacy suppression is answered first.
 */
export const suppressionsOf = groupBatched("MessageSend.suppressionsOf", async (tx, scope, asks: ReadonlyArray<SuppressionAsk>) => {
  const rows = await withRecords(tx, scope,
    `SELECT x.i,
       EXISTS (SELECT 1 FROM jsonb_array_elements_text(x.hashes) h
         JOIN privacy_suppressions p ON p.tenant_id = $1 AND p.sandbox = $2 AND p.id_hash = decode(h, 'hex')) AS subject,
       EXISTS (SELECT 1 FROM suppressions s WHERE s.tenant_id = $1 AND s.sandbox = $2 AND s.channel = x.channel
         AND s.address = x.address) AS address
     FROM jsonb_to_recordset($3::jsonb) AS x(i int, channel text, address text, hashes jsonb)`,
    asks.map((a, i) => ({ i, channel: a.channel, address: a.address, hashes: a.hashes.map((h) => h.toString("hex")) })))
  const found = byKey(rows as unknown as Array<{ i: number; subject: boolean; address: boolean }>, (r) => r.i)
  return asks.map((_, i) => {
    const row = found.get(i)!
    return row.subject ? "subject_suppressed" as const : row.address ? "suppressed" as const : null
  })
})

export interface ConversationAsk {
  readonly contact_id: string
  readonly channel: MessageChannel
  /** The id a conversation opened by this send takes. */
  readonly new_id: string
  readonly at: string
  readonly namespace: string
}

/**
 * Each contact's open conversation on the channel, touched by an outbound message, or a new one opened by it
 * (`touchConversation` for one message, inbound or outbound). Rows are locked in (contact, channel) order, the same
 * in every wave, and a pair asked twice is written once: the second asker sees the conversation as not new.
 */
export const touchConversations = groupBatched("MessageSend.touchConversations", async (tx, scope, asks: ReadonlyArray<ConversationAsk>) => {
  const pair = (a: { readonly contact_id: string; readonly channel: string }) => `${a.contact_id}|${a.channel}`
  const distinct = [...byKey(asks, pair).values()].sort((a, b) => (pair(a) < pair(b) ? -1 : 1))
  const rows = await withRecords(tx, scope,
    `INSERT INTO conversations (id, tenant_id, sandbox, contact_id, channel, status, opened_by, opened_at, last_message_at,
       last_inbound_at, namespace)
     SELECT x.new_id, $1, $2, x.contact_id, x.channel, 'open', 'outbound', x.at, x.at, NULL, x.namespace
     FROM jsonb_to_recordset($3::jsonb) AS x(new_id uuid, contact_id uuid, channel text, at timestamptz, namespace text)
     ON CONFLICT (tenant_id, sandbox, contact_id, channel) WHERE status = 'open' DO UPDATE SET
       namespace = excluded.namespace,
       last_message_at = greatest(conversations.last_message_at, excluded.last_message_at)
     RETURNING id, contact_id, channel, status, opened_by, opened_at, last_message_at, last_inbound_at, closed_at, closed_reason,
       (xmax = 0) AS is_new`,
    distinct)
  const found = byKey(rows as unknown as Array<ConversationRow>, pair)
  const answered = new Set<string>()
  return asks.map((a) => {
    const row = found.get(pair(a))!
    const first = !answered.has(pair(a))
    answered.add(pair(a))
    return first ? row : { ...row, is_new: false }
  })
})

/**
 * Records messages once each, the sender's and the guest's (inbound) alike: an id or a provider id recorded before (a
 * retried command, a repeated webhook), or an id asked twice in the wave, writes nothing and answers undefined.
 * Inserted in id order, the same in every wave.
 */
export const insertMessages = groupBatched("MessageSend.insertMessages", async (tx, scope, messages: ReadonlyArray<NewMessage>) => {
  const distinct = [...byKey(messages, (m) => m.id).values()].sort((a, b) => (a.id < b.id ? -1 : 1))
  const rows = await withRecords(tx, scope,
    `INSERT INTO messages (id, tenant_id, sandbox, contact_id, conversation_id, channel, direction, category, origin, hotel_id,
       to_address, from_address, template_name, template_language, template_parameters, subject, body_text, body_html, status,
       skip_reason, provider_message_id, journey_run_id, step_id, created_at, broadcast_id, not_before, hold_namespace)
     SELECT x.id, $1, $2, x.contact_id, x.conversation_id, x.channel, x.direction, x.category, x.origin, x.hotel_id,
       x.to_address, x.from_address, x.template_name, x.template_language, x.template_parameters, x.subject, x.body_text,
       x.body_html, x.status, x.skip_reason, x.provider_message_id, x.journey_run_id, x.step_id, x.created_at, x.broadcast_id,
       x.not_before, x.hold_namespace
     FROM jsonb_to_recordset($3::jsonb) AS x(id uuid, contact_id uuid, conversation_id uuid, channel text,
       direction text, category text, origin text, hotel_id uuid, to_address text, from_address text, template_name text,
       template_language text, template_parameters jsonb, subject text, body_text text, body_html text, status text,
       skip_reason text, provider_message_id text, journey_run_id uuid, step_id text, created_at timestamptz,
       broadcast_id uuid, not_before timestamptz, hold_namespace text)
     ON CONFLICT DO NOTHING
     RETURNING ${MESSAGE_EVENT_COLUMNS}`,
    distinct)
  const inserted = byKey(rows as unknown as Array<MessageRow>, (r) => r.id)
  const answered = new Set<string>()
  return messages.map((m) => {
    if (answered.has(m.id)) return undefined
    answered.add(m.id)
    return inserted.get(m.id)
  })
})
