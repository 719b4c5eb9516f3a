import { Schema } from "effect"
import { oneOf, SafeString, Uuid } from "./common.ts"

// The public contract of messaging: sending through the one gated send path, reading a contact's messages and a
// conversation, closing a conversation, and a contact's opt-out.

export const MessageChannels = ["email", "whatsapp"] as const
export type MessageChannel = typeof MessageChannels[number]
export const SendCategories = ["marketing", "utility", "authentication"] as const
export type SendCategory = typeof SendCategories[number]
/** A free-form WhatsApp reply inside the 24-hour customer-service window is a `service` message. */
export type MessageCategory = SendCategory | "service"

export const MessageStatuses = ["skipped", "queued", "sent", "delivered", "read", "failed", "received"] as const
export type MessageStatus = typeof MessageStatuses[number]

const text = (max: number) =>
  SafeString.check(Schema.makeFilter((s: string) => (s.trim().length > 0 && [...s].length <= max) || `must be 1 to ${max} characters`))

export const TemplateRef = Schema.Struct({
  name: text(512),
  language: text(15).annotate({ description: "as registered, e.g. `es` or `en_US`" }),
  parameters: Schema.optionalKey(Schema.Array(text(1024))
    .annotate({ description: "body parameters {{1}}, {{2}}, ... in order; their number must match the registered template" }))
})
export type TemplateRef = typeof TemplateRef.Type

/** What each channel needs, each problem at its field. */
const channelIssues = (m: SendMessageRequestFields) => {
  const issues: Array<{ readonly path: ReadonlyArray<string>; readonly issue: string }> = []
  const at = (field: string, issue: string) => issues.push({ path: [field], issue })
  if (m.channel === "email") {
    if (m.template !== undefined) at("template", "only for the whatsapp channel")
    if (m.subject === undefined) at("subject", "required for email")
    if (m.text === undefined && m.html === undefined) at("text", "email needs text or html (or both)")
  } else {
    if (m.subject !== undefined) at("subject", "only for the email channel")
    if (m.html !== undefined) at("html", "only for the email channel")
    if ((m.template === undefined) === (m.text === undefined)) at("template", "whatsapp needs a template or a text reply (exactly one)")
  }
  return issues
}


const SendMessageFields = Schema.Struct({
  contact_id: Uuid,
  channel: oneOf(MessageChannels),
  category: Schema.optionalKey(oneOf(SendCategories).annotate({
    description: "email: default `marketing` (consent needed); WhatsApp templates: the registered category (a different value is refused)"
  })),
  hotel_id: Schema.optionalKey(Uuid.annotate({ description: "the hotel the message is about: its sender override applies" })),
  template: Schema.optionalKey(TemplateRef),
  subject: Schema.optionalKey(text(998)),
  text: Schema.optionalKey(text(100_000)),
  html: Schema.optionalKey(text(500_000))
})
type SendMessageRequestFields = typeof SendMessageFields.Type

export const SendMessageRequest = SendMessageFields.check(Schema.makeFilter((m: SendMessageRequestFields) => {
  const issues = channelIssues(m)
  return issues.length === 0 ? undefined : issues
}))
export type SendMessageRequest = typeof SendMessageRequest.Type

export const SendMessageAccepted = Schema.Struct({
  message_id: Schema.String,
  status: oneOf(["queued", "skipped", "sent", "delivered", "read", "failed"]),
  skip_reason: Schema.NullOr(Schema.String).annotate({
    description: "why nothing was sent: subject_suppressed (a privacy request), no_email, no_phone, suppressed, opted_out, " +
      "no_email_marketing_consent, no_whatsapp_marketing_consent"
  })
})

const Timestamp = Schema.NullOr(Schema.String.annotate({ format: "date-time" }))

export const StoredStatus = Schema.Struct({
  status: Schema.String,
  occurred_at: Schema.String,
  at: Schema.String.annotate({ description: "the same as occurred_at (the name the tenant-wide list and the timeline use)" }),
  applied: Schema.Boolean.annotate({ description: "false: reported out of order and kept only in the history" }),
  error_code: Schema.NullOr(Schema.String)
})

/** A message's provider error: its code and words as the provider gave them, and what they mean in one sentence. */
export const MessageError = Schema.Struct({
  code: Schema.NullOr(Schema.String).annotate({ description: "a WhatsApp Cloud API error code, an SMTP reply code, or the platform's own (SMTP_NOT_CONFIGURED, ...)" }),
  message: Schema.NullOr(Schema.String),
  meaning: Schema.NullOr(Schema.String).annotate({
    description: "what the error means for the guest's message, in one plain sentence; null when the code is not one the platform knows"
  })
})

export const StoredMessage = Schema.Struct({
  id: Schema.String,
  message_id: Schema.String.annotate({ description: "the same as id" }),
  contact_id: Schema.String,
  conversation_id: Schema.NullOr(Schema.String),
  channel: Schema.String,
  direction: oneOf(["outbound", "inbound"]),
  category: Schema.NullOr(Schema.String),
  origin: Schema.String.annotate({ description: "api, journey, reply, guest, newsletter or broadcast" }),
  status: Schema.String,
  skip_reason: Schema.NullOr(Schema.String),
  hotel_id: Schema.NullOr(Schema.String),
  to: Schema.NullOr(Schema.String),
  from: Schema.NullOr(Schema.String),
  template: Schema.NullOr(Schema.Struct({ name: Schema.String, language: Schema.String, parameters: Schema.Array(Schema.String) })),
  subject: Schema.NullOr(Schema.String),
  text: Schema.NullOr(Schema.String),
  html: Schema.NullOr(Schema.String),
  provider_message_id: Schema.NullOr(Schema.String),
  error: Schema.NullOr(MessageError),
  attempts: Schema.Number,
  journey_run_id: Schema.NullOr(Schema.String),
  run_id: Schema.NullOr(Schema.String).annotate({ description: "the same as journey_run_id" }),
  journey_id: Schema.NullOr(Schema.String).annotate({ description: "the journey of the run that sent it" }),
  broadcast_id: Schema.NullOr(Schema.String).annotate({ description: "the broadcast it was sent for" }),
  step_id: Schema.NullOr(Schema.String),
  created_at: Schema.String,
  sent_at: Timestamp,
  delivered_at: Timestamp,
  read_at: Timestamp,
  failed_at: Timestamp,
  statuses: Schema.Array(StoredStatus)
})
export type StoredMessage = typeof StoredMessage.Type

export const MessagesPage = Schema.Struct({
  success: Schema.Literal(true),
  data: Schema.Struct({ messages: Schema.Array(StoredMessage), next_cursor: Schema.NullOr(Schema.String) })
})

export const StoredConversation = Schema.Struct({
  id: Schema.String,
  contact_id: Schema.String,
  channel: Schema.String,
  status: oneOf(["open", "closed"]),
  opened_by: oneOf(["inbound", "outbound"]),
  opened_at: Schema.String,
  last_message_at: Schema.String,
  last_inbound_at: Timestamp,
  service_window_open_until: Timestamp.annotate({ description: "WhatsApp: free-form replies are possible until then" }),
  closed_at: Timestamp,
  closed_reason: Schema.NullOr(Schema.String),
  messages: Schema.Array(StoredMessage)
})

export const ConversationResponse = Schema.Struct({ success: Schema.Literal(true), data: StoredConversation })

export const OptOutRequest = Schema.Struct({
  channel: oneOf(MessageChannels),
  source: Schema.optionalKey(text(200).annotate({ description: "where the guest asked (default `api`)" }))
})

export const OptOutResponse = Schema.Struct({
  contact_id: Schema.String,
  channel: Schema.String,
  opted_out_at: Schema.String
})
