import { Schema } from "effect"
import { webhookEnvelope } from "./webhookEnvelope.ts"

// The `data` of the messaging webhooks, documented in /openapi.json under `webhooks` (OpenAPI 3.1) and in the README.

const Time = Schema.NullOr(Schema.String.annotate({ format: "date-time" }))

export const WebhookContact = Schema.NullOr(Schema.Struct({
  id: Schema.String,
  phone: Schema.NullOr(Schema.String),
  email: Schema.NullOr(Schema.String),
  first_name: Schema.NullOr(Schema.String),
  last_name: Schema.NullOr(Schema.String)
}))

export const MessageEventData = Schema.Struct({
  message: Schema.Struct({
    id: Schema.String,
    contact_id: Schema.String,
    conversation_id: Schema.NullOr(Schema.String),
    channel: Schema.Literals(["email", "whatsapp"]),
    direction: Schema.Literals(["outbound", "inbound"]),
    category: Schema.NullOr(Schema.Literals(["marketing", "utility", "authentication", "service"])),
    origin: Schema.Literals(["api", "journey", "reply", "guest", "newsletter", "broadcast"]),
    status: Schema.Literals(["sent", "delivered", "read", "failed", "received"]),
    template: Schema.NullOr(Schema.Struct({ name: Schema.String, language: Schema.String })),
    subject: Schema.NullOr(Schema.String),
    text: Schema.NullOr(Schema.String),
    hotel_id: Schema.NullOr(Schema.String),
    provider_message_id: Schema.NullOr(Schema.String),
    error: Schema.NullOr(Schema.Struct({ code: Schema.NullOr(Schema.String), message: Schema.NullOr(Schema.String) })),
    journey_run_id: Schema.NullOr(Schema.String),
    step_id: Schema.NullOr(Schema.String),
    created_at: Schema.String,
    sent_at: Time,
    delivered_at: Time,
    read_at: Time,
    failed_at: Time
  }),
  contact: WebhookContact
})

export const ConversationEventData = Schema.Struct({
  conversation: Schema.Struct({
    id: Schema.String,
    contact_id: Schema.String,
    channel: Schema.Literals(["email", "whatsapp"]),
    status: Schema.Literals(["open", "closed"]),
    opened_by: Schema.Literals(["inbound", "outbound"]),
    opened_at: Schema.String,
    last_message_at: Schema.String,
    closed_at: Time,
    closed_reason: Schema.NullOr(Schema.Literals(["inactivity", "api"]))
  }),
  contact: WebhookContact
})

const envelope = webhookEnvelope

/** Event type → the body a subscription receives, signed as described in the README. */
export const MessagingWebhooks: ReadonlyArray<readonly [string, Schema.Top]> = [
  ...["message.sent", "message.delivered", "message.read", "message.failed", "message.received"].map((t) => [t, envelope(t, MessageEventData)] as const),
  ...["conversation.created", "conversation.closed"].map((t) => [t, envelope(t, ConversationEventData)] as const)
]
