import { Schema } from "effect"
import * as ActorProtocol from "../../streams/ActorProtocol.ts"

const opt = <S extends Schema.Top>(s: S) => Schema.optional(s)

export const WebsiteWarning = Schema.Struct({ code: Schema.String, message: Schema.String })
export type WebsiteWarning = typeof WebsiteWarning.Type

/**
 * One website event from an identified guest, already judged by the contract at the ingress (normalised contact,
 * hotel resolved, occurred_at set). The actor matches or creates the contact, weighs the consent claim, and stores
 * and publishes the event when a journey listens (rule 7), deduped by its keys.
 */
export const ApplyWebsiteEvent = Schema.Struct({
  event_id: Schema.String,
  source_id: Schema.String,
  consent_mode: Schema.Literals(["honour", "ignore"]),
  event: Schema.String,
  occurred_at: Schema.String,
  hotel_id: Schema.NullOr(Schema.String),
  email: opt(Schema.String),
  phone: opt(Schema.String),
  first_name: opt(Schema.String),
  last_name: opt(Schema.String),
  language: opt(Schema.String),
  consent: opt(Schema.Struct({
    email_marketing: Schema.Boolean,
    text: opt(Schema.String),
    captured_at: opt(Schema.String),
    language: opt(Schema.String),
    form_id: opt(Schema.String)
  })),
  idempotency_key: opt(Schema.String),
  /** The natural dedupe key (event, cart or session, guest), when the event names a cart or session. */
  natural_key: opt(Schema.String),
  /** What journeys read: `{ context, properties, contact }` of the request's event. */
  data: Schema.Record(Schema.String, Schema.Unknown),
  ip: Schema.NullOr(Schema.String),
  user_agent: Schema.NullOr(Schema.String)
})
export type ApplyWebsiteEvent = typeof ApplyWebsiteEvent.Type

export const WebsiteEventApplied = Schema.Struct({
  status: Schema.Literals(["accepted", "duplicate"]),
  event_id: Schema.String,
  contact: Schema.Literals(["matched", "created"]),
  contact_id: Schema.String,
  /** True when a journey listens and the event was stored and published to the journeys engine. */
  stored: Schema.Boolean,
  warnings: Schema.Array(WebsiteWarning)
})
export type WebsiteEventApplied = typeof WebsiteEventApplied.Type

/**
 * The website actor: keyed by the event's idempotency key when it has one (repeats of one key are serialised and
 * answered from the first), else by the guest (email, else phone), so one guest's events apply in order.
 */
export const WebsiteProtocol = ActorProtocol.make("website", {
  key: (p) => (p.idempotency_key !== undefined ? `ik:${p.idempotency_key}` : `g:${p.email ?? p.phone ?? p.event_id}`),
  messages: {
    apply: ActorProtocol.message({ payload: ApplyWebsiteEvent, success: WebsiteEventApplied })
  }
})
