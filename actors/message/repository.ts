import { readEmailChannel, readWhatsAppSetup } from "../../core/channel/repository.ts"
import { PREPARED, type Tx } from "../../core/db/Database.ts"
import type { TenantScope } from "../../core/TenantScope.ts"
import type { MessageChannel } from "../../schemas/message.ts"
import type { Recipient } from "./state.ts"

// The message actor's SQL. Every statement runs in the group's transaction under the tenant's row-level security;
// the tenant columns are still written and filtered explicitly (the policy is defence in depth, not the filter).

export interface ContactForSend extends Recipient {
  readonly id: string
  readonly first_name: string | null
  readonly last_name: string | null
}

/** The columns a `message.*` webhook carries, as the payload builder takes them. */
export const MESSAGE_EVENT_COLUMNS = `id, contact_id, conversation_id, channel, direction, category, origin, status, skip_reason,
  template_name, template_language, subject, body_text, provider_message_id, error_code, error_message, journey_run_id, step_id,
  hotel_id, created_at, sent_at, delivered_at, read_at, failed_at`

export interface MessageRow {
  readonly id: string
  readonly contact_id: string
  readonly conversation_id: string | null
  readonly channel: "email" | "whatsapp"
  readonly direction: string
  readonly category: string | null
  readonly origin: string
  readonly status: string
  readonly skip_reason: string | null
  readonly template_name: string | null
  readonly template_language: string | null
  readonly subject: string | null
  readonly body_text: string | null
  readonly provider_message_id: string | null
  readonly error_code: string | null
  readonly error_message: string | null
  readonly journey_run_id: string | null
  readonly step_id: string | null
  readonly hotel_id: string | null
  readonly created_at: Date
  readonly sent_at: Date | null
  readonly delivered_at: Date | null
  readonly read_at: Date | null
  readonly failed_at: Date | null
}

export interface NewMessage {
  readonly id: string
  readonly contact_id: string
  readonly conversation_id: string | null
  readonly channel: MessageChannel
  readonly direction: "outbound" | "inbound"
  readonly category: string | null
  readonly origin: string
  readonly hotel_id: string | null
  readonly to_address: string | null
  readonly from_address: string | null
  readonly template_name: string | null
  readonly template_language: string | null
  readonly template_parameters: ReadonlyArray<string> | null
  readonly subject: string | null
  readonly body_text: string | null
  readonly body_html: string | null
  readonly status: string
  readonly skip_reason: string | null
  readonly provider_message_id: string | null
  readonly journey_run_id: string | null
  readonly step_id: string | null
  readonly broadcast_id: string | null
  /** Not to be handed to a provider before this instant (quiet hours); null: at once. */
  readonly not_before: string | null
  /** For a held message: the deployment whose sweep releases it (heldRelease.ts). */
  readonly hold_namespace: string | null
  readonly created_at: string
}

export interface ConversationRow {
  readonly id: string
  readonly contact_id: string
  readonly channel: string
  readonly status: string
  readonly opened_by: string
  readonly opened_at: Date
  readonly last_message_at: Date
  readonly last_inbound_at: Date | null
  readonly closed_at: Date | null
  readonly closed_reason: string | null
  readonly is_new: boolean
}

/**
 * The contact's open conversation on the channel, touched by a message at `at`, or a new one opened by it. One
 * statement on the partial unique index, so a send and a guest's message arriving together open one conversation.
 * The conversation belongs to the deployment (`namespace`) whose actor last touched it: only its idle sweep closes it.
 */
export const touchConversation = async (
  tx: Tx, scope: TenantScope, contactId: string, channel: MessageChannel, newId: string, inbound: boolean, at: string, namespace: string
): Promise<ConversationRow> => {
  const [row] = await tx<Array<ConversationRow>>`
    INSERT INTO conversations (id, tenant_id, sandbox, contact_id, channel, status, opened_by, opened_at, last_message_at, last_inbound_at, namespace)
    VALUES (${newId}, ${scope.tenant_id}, ${scope.sandbox}, ${contactId}, ${channel}, 'open',
      ${inbound ? "inbound" : "outbound"}, ${at}, ${at}, ${inbound ? at : null}, ${namespace})
    ON CONFLICT (tenant_id, sandbox, contact_id, channel) WHERE status = 'open' DO UPDATE SET
      namespace = excluded.namespace,
      last_message_at = greatest(conversations.last_message_at, excluded.last_message_at),
      last_inbound_at = CASE WHEN ${inbound} THEN greatest(conversations.last_inbound_at, excluded.last_message_at)
        ELSE conversations.last_inbound_at END
    RETURNING id, contact_id, channel, status, opened_by, opened_at, last_message_at, last_inbound_at, closed_at, closed_reason,
      (xmax = 0) AS is_new`
  return row!
}

export const openConversation = async (tx: Tx, scope: TenantScope, contactId: string, channel: MessageChannel) => {
  const [row] = await tx<Array<{ id: string; last_inbound_at: Date | null }>>`
    SELECT id, last_inbound_at FROM conversations WHERE tenant_id = ${scope.tenant_id} AND sandbox = ${scope.sandbox}
      AND contact_id = ${contactId} AND channel = ${channel} AND status = 'open'`
  return row
}

export const closeConversation = async (tx: Tx, scope: TenantScope, contactId: string, id: string) => {
  const [row] = await tx<Array<ConversationRow & { was_open: boolean }>>`
    WITH target AS (
      SELECT id, status = 'open' AS was_open FROM conversations
      WHERE id = ${id} AND contact_id = ${contactId} AND tenant_id = ${scope.tenant_id} AND sandbox = ${scope.sandbox} FOR UPDATE
    ), closed AS (
      UPDATE conversations c SET status = 'closed', closed_at = now(), closed_reason = 'api'
      FROM target t WHERE c.id = t.id AND t.was_open
      RETURNING c.id
    )
    SELECT c.id, c.contact_id, c.channel, c.status, c.opened_by, c.opened_at, c.last_message_at, c.last_inbound_at,
      coalesce(c.closed_at, now()) AS closed_at, coalesce(c.closed_reason, 'api') AS closed_reason, false AS is_new, t.was_open
    FROM target t JOIN conversations c ON c.id = t.id`
  return row
}

/**
 * A status WhatsApp reported: found by our id (the callback data) or the provider's, applied only when it moves the
 * message on (see `advances` in state.ts, which this CASE mirrors), and kept in the history either way. Returns the
 * message and whether the status applied; undefined when the message is not ours.
 */
export const applyStatus = async (
  tx: Tx, scope: TenantScope,
  r: { readonly provider_message_id: string; readonly callback_data?: string | undefined; readonly status: string; readonly occurred_at: string; readonly error_code?: string | undefined; readonly error_message?: string | undefined }
): Promise<{ message: MessageRow; applied: boolean } | undefined> => {
  const byId = r.callback_data !== undefined && /^[0-9a-f-]{36}$/i.test(r.callback_data) ? r.callback_data : null
  const [target] = await tx<Array<{ id: string; status: string }>>`
    SELECT id, status FROM messages
    WHERE tenant_id = ${scope.tenant_id} AND sandbox = ${scope.sandbox} AND channel = 'whatsapp' AND direction = 'outbound'
      AND (provider_message_id = ${r.provider_message_id} OR id = ${byId}::uuid)
    ORDER BY (provider_message_id = ${r.provider_message_id}) DESC NULLS LAST LIMIT 1 FOR UPDATE`
  if (!target) return undefined
  const [updated] = await tx.unsafe<Array<MessageRow & { applied: boolean }>>(
    `WITH u AS (
       UPDATE messages SET
         status = $2,
         provider_message_id = coalesce(provider_message_id, $3),
         -- an outcome arrived: a send attempt left without one (a crash after the call) is settled by it
         attempt_started_at = NULL,
         sent_at = CASE WHEN $2 <> 'failed' THEN coalesce(sent_at, $4::timestamptz) ELSE sent_at END,
         delivered_at = CASE WHEN $2 IN ('delivered', 'read') THEN coalesce(delivered_at, $4::timestamptz) ELSE delivered_at END,
         read_at = CASE WHEN $2 = 'read' THEN coalesce(read_at, $4::timestamptz) ELSE read_at END,
         failed_at = CASE WHEN $2 = 'failed' THEN $4::timestamptz ELSE failed_at END,
         error_code = CASE WHEN $2 = 'failed' THEN $5 ELSE error_code END,
         error_message = CASE WHEN $2 = 'failed' THEN $6 ELSE error_message END,
         updated_at = now()
       WHERE id = $1 AND CASE $2
         WHEN 'failed' THEN status IN ('queued', 'sent')
         WHEN 'sent' THEN status = 'queued'
         WHEN 'delivered' THEN status IN ('queued', 'sent')
         WHEN 'read' THEN status IN ('queued', 'sent', 'delivered')
         ELSE false END
       RETURNING ${MESSAGE_EVENT_COLUMNS}, true AS applied
     )
     SELECT * FROM u
     UNION ALL
     SELECT ${MESSAGE_EVENT_COLUMNS}, false AS applied FROM messages WHERE id = $1 AND NOT EXISTS (SELECT 1 FROM u)`,
    [target.id, r.status, r.provider_message_id, r.occurred_at, r.error_code ?? null, r.error_message ?? null], PREPARED
  )
  await tx`INSERT INTO message_statuses (message_id, tenant_id, sandbox, status, error_code, occurred_at, applied)
    VALUES (${target.id}, ${scope.tenant_id}, ${scope.sandbox}, ${r.status}, ${r.error_code ?? null}, ${r.occurred_at}, ${updated!.applied})`
  const { applied, ...message } = updated!
  return { message, applied }
}

/** Suppresses an address for good (a hard bounce, a number that is not on WhatsApp). */
export const suppress = (tx: Tx, scope: TenantScope, channel: string, address: string, reason: string, messageId: string) => tx`
  INSERT INTO suppressions (tenant_id, sandbox, channel, address, reason, message_id)
  VALUES (${scope.tenant_id}, ${scope.sandbox}, ${channel}, ${address}, ${reason}, ${messageId})
  ON CONFLICT DO NOTHING`

/**
 * Withdraws a channel's marketing consent for good: consent false, the opt-out time kept (the first one), and the
 * withdrawal in the consent audit trail with its source.
 */
export const recordOptOut = async (tx: Tx, scope: TenantScope, contactId: string, channel: MessageChannel, source: string, envelopeId: string) => {
  const [row] = channel === "email"
    ? await tx<Array<{ opted_out_at: Date }>>`UPDATE contacts SET email_consent = false,
        email_opted_out_at = coalesce(email_opted_out_at, now()), updated_at = now()
        WHERE id = ${contactId} AND tenant_id = ${scope.tenant_id} AND sandbox = ${scope.sandbox} RETURNING email_opted_out_at AS opted_out_at`
    : await tx<Array<{ opted_out_at: Date }>>`UPDATE contacts SET whatsapp_marketing_consent = false,
        whatsapp_opted_out_at = coalesce(whatsapp_opted_out_at, now()), updated_at = now()
        WHERE id = ${contactId} AND tenant_id = ${scope.tenant_id} AND sandbox = ${scope.sandbox} RETURNING whatsapp_opted_out_at AS opted_out_at`
  if (!row) return undefined
  await tx`INSERT INTO consent_records (contact_id, channel, granted, source, envelope_id, tenant_id, sandbox)
    VALUES (${contactId}, ${channel}, false, ${source}, ${envelopeId}, ${scope.tenant_id}, ${scope.sandbox})`
  return row.opted_out_at
}

/** Whether the tenant configured the channel, and its sender (email) or number and templates (WhatsApp, no secrets). */
export const channelSetup = async (tx: Tx, scope: TenantScope, channel: MessageChannel) => {
  if (channel === "email") {
    const email = await readEmailChannel(tx, scope)
    return email ? { configured: true as const, email, templates: [], phone_number_id: undefined } : { configured: false as const }
  }
  const whatsapp = await readWhatsAppSetup(tx, scope)
  return whatsapp ? { configured: true as const, email: undefined, ...whatsapp } : { configured: false as const }
}
