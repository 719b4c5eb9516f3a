import { randomUUID } from "node:crypto"
import type { TenantScope } from "../../core/TenantScope.ts"
import type { OutboxMessage } from "../runtime/Actor.ts"
import type { ContactSummary } from "../shared/identity.ts"
import type { ConversationRow, MessageRow } from "./repository.ts"
import { DeliverCommands, WebhookCommands } from "../../streams/topics.ts"

// Payloads of the `message.*` and `conversation.*` webhooks (documented in the README and OpenAPI): the message or
// conversation as stored after the change, and the contact it belongs to.

export type MessageEventType = "message.sent" | "message.delivered" | "message.read" | "message.failed" | "message.received"
export type ConversationEventType = "conversation.created" | "conversation.closed"

type Subject = (kind: "cmd", name: string) => string

const iso = (d: Date | string | null) => (d === null ? null : new Date(d).toISOString())

export const messageData = (m: MessageRow) => ({
  id: m.id,
  contact_id: m.contact_id,
  conversation_id: m.conversation_id,
  channel: m.channel,
  direction: m.direction,
  category: m.category,
  origin: m.origin,
  status: m.status,
  template: m.template_name === null ? null : { name: m.template_name, language: m.template_language },
  subject: m.subject,
  text: m.body_text,
  hotel_id: m.hotel_id,
  provider_message_id: m.provider_message_id,
  error: m.error_code === null && m.error_message === null ? null : { code: m.error_code, message: m.error_message },
  journey_run_id: m.journey_run_id,
  step_id: m.step_id,
  created_at: iso(m.created_at),
  sent_at: iso(m.sent_at),
  delivered_at: iso(m.delivered_at),
  read_at: iso(m.read_at),
  failed_at: iso(m.failed_at)
})

export const conversationData = (c: ConversationRow) => ({
  id: c.id,
  contact_id: c.contact_id,
  channel: c.channel,
  status: c.status,
  opened_by: c.opened_by,
  opened_at: iso(c.opened_at),
  last_message_at: iso(c.last_message_at),
  closed_at: iso(c.closed_at),
  closed_reason: c.closed_reason
})

const contactData = (c: ContactSummary | undefined) =>
  c === undefined ? null : { id: c.id, phone: c.phone, email: c.email, first_name: c.first_name, last_name: c.last_name }

/** The webhook command for a message's change (its id: one per message and status, so a republish is deduplicated). */
export const messageEvent = (
  subject: Subject, scope: TenantScope, type: MessageEventType, m: MessageRow, contact: ContactSummary | undefined, occurredAt: string
): OutboxMessage =>
  WebhookCommands.message(randomUUID(), subject("cmd", `webhook.${type}`), {
    ...scope, occurred_at: occurredAt, event_type: type, data: { message: messageData(m), contact: contactData(contact) }
  })

export const conversationEvent = (
  subject: Subject, scope: TenantScope, type: ConversationEventType, c: ConversationRow, contact: ContactSummary | undefined, occurredAt: string
): OutboxMessage =>
  WebhookCommands.message(randomUUID(), subject("cmd", `webhook.${type}`), {
    ...scope, occurred_at: occurredAt, event_type: type, data: { conversation: conversationData(c), contact: contactData(contact) }
  })

/** The deliverer's command: one per queued message (its id is the message's, so it is published once). */
export const deliverCommand = (subject: Subject, scope: TenantScope, m: { id: string; channel: "email" | "whatsapp" }): OutboxMessage =>
  DeliverCommands.message(`deliver:${m.id}`, subject("cmd", `message.deliver.${m.channel}`), { ...scope, message_id: m.id, channel: m.channel })
