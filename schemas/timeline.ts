import { Schema } from "effect"
import { listOf } from "./list.ts"

// GET /api/v1/contacts/{contact_id}/timeline: one item shape `{ at, kind, id, summary, data }` (fixed by issue 24),
// `data` typed per kind. The kinds are a closed set: a client can switch on `kind` exhaustively.

const Time = Schema.String.annotate({ description: "ISO 8601 date-time, UTC" })
const Id = Schema.String
const nullable = <S extends Schema.Top>(s: S) => Schema.NullOr(s)

const item = <const K extends string, D extends Schema.Top>(kind: K, description: string, data: D) =>
  Schema.Struct({
    at: Time,
    kind: Schema.Literal(kind),
    id: Id.annotate({ description: "unique within the kind" }),
    summary: Schema.String.annotate({ description: "one short human line" }),
    data
  }).annotate({ title: `Timeline item ${kind}`, description })

export const ReservationItem = item("reservation", "a reservation created, changed, cancelled, checked in or out (its booking event)", Schema.Struct({
  event_type: Schema.String.annotate({ description: "booking.created, booking.updated, booking.cancelled, guest.checked_in or guest.checked_out" }),
  reservation_id: nullable(Id),
  external_reservation_id: nullable(Schema.String),
  hotel_id: nullable(Id),
  status: nullable(Schema.String),
  check_in: nullable(Schema.String),
  check_out: nullable(Schema.String)
}))

export const EventItem = item("event", "a core event sent to POST /api/v1/events about the contact", Schema.Struct({
  type: Schema.String,
  source: nullable(Schema.String),
  hotel_id: nullable(Id),
  reservation_id: nullable(Id)
}))

export const WebsiteEventItem = item("website_event", "a website event stored for the contact", Schema.Struct({
  event: Schema.String,
  source_id: Id,
  hotel_id: nullable(Id),
  cart_id: nullable(Schema.String),
  session_id: nullable(Schema.String),
  occurred_at: Time
}))

export const CdpEventItem = item("cdp_event", "a CDP (browser SDK) event stitched to the contact", Schema.Struct({
  type: Schema.String,
  url: nullable(Schema.String),
  title: nullable(Schema.String),
  visitor_id: Schema.String,
  session_id: Schema.String
}))

export const MessageStatusStep = Schema.Struct({ status: Schema.String, at: Time, error_code: nullable(Schema.String) })

export const MessageItem = item("message", "a message sent (or skipped) to the contact, with its status chain", Schema.Struct({
  channel: Schema.String,
  category: nullable(Schema.String),
  origin: Schema.String,
  status: Schema.String,
  skip_reason: nullable(Schema.String),
  template_name: nullable(Schema.String),
  subject: nullable(Schema.String),
  error_code: nullable(Schema.String),
  error_message: nullable(Schema.String).annotate({ description: "the provider's own words (an SMTP reply, a WhatsApp error title)" }),
  error_meaning: nullable(Schema.String).annotate({
    description: "what the error means, in one plain sentence; null when the code is not one the platform knows"
  }),
  journey_run_id: nullable(Id),
  statuses: Schema.Array(MessageStatusStep).annotate({ description: "every status reported, oldest first (at most 20)" })
}))

export const InboundMessageItem = item("inbound_message", "a message the contact sent", Schema.Struct({
  channel: Schema.String,
  conversation_id: nullable(Id),
  text: nullable(Schema.String)
}))

const JourneyName = Schema.String.annotate({ description: "the journey's name (as its definition has it now)" })

export const JourneyEnteredItem = item("journey_entered", "the contact entered a journey", Schema.Struct({
  journey_id: Id,
  journey_name: JourneyName,
  run_id: Id,
  version: Schema.Number,
  scope: Schema.String,
  hotel_id: nullable(Id),
  reservation_id: nullable(Id)
}))

export const JourneyStepItem = item("journey_step", "a step of a journey run done", Schema.Struct({
  journey_id: Id,
  journey_name: JourneyName,
  run_id: Id,
  step_id: Schema.String,
  step_type: Schema.String,
  outcome: Schema.String.annotate({ description: "sent, skipped, failed, waited, branched or ended" }),
  reason: nullable(Schema.String),
  message_id: nullable(Id)
}))

export const JourneyEndedItem = item("journey_ended", "a journey run ended: completed, stopped (with its reason) or failed", Schema.Struct({
  journey_id: Id,
  journey_name: JourneyName,
  run_id: Id,
  state: Schema.String,
  reason: nullable(Schema.String)
}))

export const CallItem = item("call", "a phone call with the contact", Schema.Struct({
  provider: Schema.String,
  call_id: Schema.String,
  direction: nullable(Schema.String),
  status: Schema.String,
  answered: nullable(Schema.Boolean),
  duration_seconds: nullable(Schema.Number),
  outcome: nullable(Schema.String)
}))

export const LoyaltyMovementItem = item("loyalty_movement", "a movement of the contact's loyalty points", Schema.Struct({
  member_id: Id,
  movement: Schema.String.annotate({ description: "earn, redeem, expire, opening_balance, balance_set, confirm, void, discount, ..." }),
  status: Schema.String,
  points: Schema.Number,
  pending_points: Schema.Number,
  balance_after: Schema.Number,
  reason: nullable(Schema.String),
  reservation_id: nullable(Schema.String)
}))

export const ConsentChangeItem = item("consent_change", "a consent claim recorded for a channel", Schema.Struct({
  channel: Schema.String,
  granted: Schema.Boolean,
  source: Schema.String,
  captured_at: nullable(Time)
}))

export const WebhookItem = item("webhook", "a webhook event about the contact emitted to one subscription (one item per subscription)", Schema.Struct({
  event_type: Schema.String,
  event_id: Schema.String.annotate({ description: "the body's event_id and X-Webhook-Event-Id" }),
  subscription_id: Schema.String,
  sequence: Schema.Number.annotate({ description: "the body's sequence" })
}))

export const TimelineItem = Schema.Union([
  ReservationItem, EventItem, WebsiteEventItem, CdpEventItem, MessageItem, InboundMessageItem, JourneyEnteredItem,
  JourneyStepItem, JourneyEndedItem, CallItem, LoyaltyMovementItem, ConsentChangeItem, WebhookItem
]).annotate({
  description: "one thing that happened to the contact; `kind` is one of reservation, event, website_event, cdp_event, message, " +
    "inbound_message, journey_entered, journey_step, journey_ended, call, loyalty_movement, consent_change, webhook (a closed set), " +
    "and `data` is typed by it"
})
export type TimelineItem = typeof TimelineItem.Type
export type TimelineKind = TimelineItem["kind"]

export const TimelineResponse = listOf("items", TimelineItem)
