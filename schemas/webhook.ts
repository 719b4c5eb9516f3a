import { Schema } from "effect"
import { boundedInt, maxLength, oneOf, SafeString, Warning } from "./common.ts"
import { listOf, ok } from "./list.ts"
import { LoyaltyEventTypes } from "./loyaltyEvents.ts"
import { webhookEnvelope } from "./webhookEnvelope.ts"

/** The spec's outbound webhook events ("Outbound webhook events"); `*` subscribes to all of them. */
export const WebhookEventTypes = [
  "message.received", "message.sent", "message.delivered", "message.read", "message.failed",
  "contact.created", "contact.updated", "contact.deleted",
  "conversation.created", "conversation.closed",
  "journey.started", "journey.completed", "journey.failed",
  "broadcast.sent", "broadcast.completed",
  "reservation.checked_in", "reservation.checked_out",
  // B2B CRM: a reservation's account attribution changed (not in the spec's list; additive).
  "reservation.attribution_changed",
  // Loyalty (issue 14; additive): enrolment, points earned, tier changed, a redemption the team must fulfil.
  ...LoyaltyEventTypes
] as const
export type WebhookEventType = typeof WebhookEventTypes[number]

/**
 * Retry policy applied for a field not sent: 10 attempts, waits doubling from 30 s and capped at 2 h (30 s, 1 min,
 * 2 min ... 64 min, 2 h: about 4 h 8 min from the first attempt to the last). The limits (20 attempts, waits of at most
 * 6 h) keep the longest schedule inside the 7 days the delivery stream keeps a message.
 */
export const DefaultRetryPolicy = { max_attempts: 10, initial_backoff_seconds: 30, max_backoff_seconds: 3600 * 2 } as const
export const MAX_BACKOFF_SECONDS = 6 * 3600
export const MAX_CUSTOM_HEADERS = 20

// Headers the platform sets or that carry transport, origin or credential meaning: a subscription may not send them.
const RESERVED_EXACT = new Set([
  "host", "content-length", "content-type", "content-encoding", "transfer-encoding", "connection", "keep-alive",
  "upgrade", "te", "trailer", "expect", "authorization", "cookie", "set-cookie", "user-agent", "date", "via",
  "forwarded", "x-real-ip", "origin", "referer"
])
const RESERVED_PREFIXES = ["x-webhook-", "webhook-", "proxy-", "sec-", "x-forwarded-"]
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/
const VALUE = /^[\t\x20-\x7e]*$/

/** Why a custom header name is refused (case-insensitive), or undefined when it may be sent. */
export const reservedHeaderReason = (name: string): string | undefined => {
  if (!TOKEN.test(name) || name.length > 100) return "is not a valid header name"
  const lower = name.toLowerCase()
  if (RESERVED_EXACT.has(lower) || RESERVED_PREFIXES.some((p) => lower.startsWith(p))) {
    return "is reserved by the platform (signature, transport or credential header) and cannot be set"
  }
  return undefined
}

const CustomHeaders = Schema.Record(Schema.String, SafeString).check(Schema.makeFilter((headers) => {
  const issues: Array<Schema.FilterIssue> = []
  const names = Object.keys(headers)
  if (names.length > MAX_CUSTOM_HEADERS) issues.push({ path: [], issue: `at most ${MAX_CUSTOM_HEADERS} headers` })
  const seen = new Set<string>()
  for (const name of names) {
    const reason = reservedHeaderReason(name)
    if (reason) issues.push({ path: [name], issue: reason })
    else if (seen.has(name.toLowerCase())) issues.push({ path: [name], issue: "is given twice (header names are case-insensitive)" })
    seen.add(name.toLowerCase())
    const value = headers[name]!
    if (!VALUE.test(value) || value.length > 1000) {
      issues.push({ path: [name], issue: "must be printable ASCII, at most 1000 characters" })
    }
  }
  return issues
}, {
  // The names are checked above (a token of at most 100 characters): documented as the record's propertyNames.
  toJsonSchema: () => ({ propertyNames: { pattern: TOKEN.source, maxLength: 100 } }) as never
})).annotate({ description: "Extra headers sent with every delivery; platform, transport and credential headers are refused" })

const intBetween = boundedInt

export const RetryPolicyInput = Schema.Struct({
  max_attempts: Schema.optionalKey(intBetween(1, 20)),
  initial_backoff_seconds: Schema.optionalKey(intBetween(1, 3600)),
  max_backoff_seconds: Schema.optionalKey(intBetween(1, MAX_BACKOFF_SECONDS))
}).annotate({ description: "Attempts in all (first included) and exponential waits: initial x 2^(n-1), capped, plus up to 25% jitter" })

const EventTypeList = Schema.Array(oneOf([...WebhookEventTypes, "*"])).check(Schema.makeFilter((a: ReadonlyArray<string>) =>
  (a.length >= 1 && a.length <= WebhookEventTypes.length + 1 && new Set(a).size === a.length) ||
  "must list 1 or more distinct event types (or \"*\" for all)"
))

const WebhookUrl = SafeString.check(Schema.makeFilter((s: string) =>
  (s.length > 0 && s.length <= 2048) || "must be an https URL of at most 2048 characters"
))

export const MIN_SECRET_BYTES = 24
export const MAX_SECRET_BYTES = 75
const SECRET_TEXT = /^[\x21-\x7e]{1,120}$/
const BASE64 = /^[A-Za-z0-9+/_-]+={0,2}$/

/**
 * The bytes of key material a partner's own secret holds: after an optional `whsec_` prefix, base64 (or base64url)
 * decodes to its bytes; anything else counts as its raw text. Undefined for text a header or a verifier's config
 * could not hold (spaces, control characters, non-ASCII, over 120 characters) or that holds fewer than 10 distinct
 * characters (`aaaa...`, `0000...`: long, yet no secret).
 */
export const secretBytes = (secret: string): number | undefined => {
  if (!SECRET_TEXT.test(secret) || new Set(secret).size < 10) return undefined
  const body = secret.startsWith("whsec_") ? secret.slice(6) : secret
  return BASE64.test(body) && body.replace(/=+$/, "").length % 4 !== 1
    ? Math.floor((body.replace(/=+$/, "").length * 3) / 4)
    : body.length
}

const PartnerSecret = SafeString.check(Schema.makeFilter((s: string) => {
  const bytes = secretBytes(s)
  // Never the value in the message: it is a secret.
  return (bytes !== undefined && bytes >= MIN_SECRET_BYTES && bytes <= MAX_SECRET_BYTES) ||
    `must be ${MIN_SECRET_BYTES} to ${MAX_SECRET_BYTES} bytes of random key material: base64 (an optional whsec_ prefix) or printable ASCII text`
})).annotate({
  description: "Your own signing secret, e.g. when moving from another provider with a verifier already configured: " +
    `${MIN_SECRET_BYTES} to ${MAX_SECRET_BYTES} bytes of random key material, base64 with an optional whsec_ prefix or printable ASCII. ` +
    "Signatures are keyed with this string exactly as sent; it is stored encrypted and not shown back. Omit it to have one generated."
})

export const CreateWebhookRequest = Schema.Struct({
  url: WebhookUrl,
  event_types: EventTypeList,
  headers: Schema.optionalKey(CustomHeaders),
  enabled: Schema.optionalKey(Schema.Boolean),
  description: Schema.optionalKey(Schema.NullOr(maxLength(500))),
  retry_policy: Schema.optionalKey(RetryPolicyInput),
  secret: Schema.optionalKey(PartnerSecret)
})
export type CreateWebhookRequest = typeof CreateWebhookRequest.Type

/** Every field optional: fields not sent stay; `headers` replaces the set; `retry_policy` merges field by field. */
export const UpdateWebhookRequest = Schema.Struct({
  url: Schema.optionalKey(WebhookUrl),
  event_types: Schema.optionalKey(EventTypeList),
  headers: Schema.optionalKey(CustomHeaders),
  enabled: Schema.optionalKey(Schema.Boolean),
  description: Schema.optionalKey(Schema.NullOr(maxLength(500))),
  retry_policy: Schema.optionalKey(RetryPolicyInput)
})
export type UpdateWebhookRequest = typeof UpdateWebhookRequest.Type

const LocalTime = SafeString.check(Schema.makeFilter((s: string) =>
  /^([01]\d|2[0-3]):[0-5]\d$/.test(s) || "must be a local time HH:MM (24 h)"
))

export const WebhookSettingsRequest = Schema.Struct({
  check_in_time: Schema.optionalKey(LocalTime),
  check_out_time: Schema.optionalKey(LocalTime)
})

export const WebhookSubscription = Schema.Struct({
  id: Schema.String,
  url: Schema.String,
  event_types: Schema.Array(Schema.String),
  headers: Schema.Record(Schema.String, Schema.String),
  enabled: Schema.Boolean,
  disabled_reason: Schema.NullOr(Schema.String),
  description: Schema.NullOr(Schema.String),
  retry_policy: Schema.Struct({ max_attempts: Schema.Int, initial_backoff_seconds: Schema.Int, max_backoff_seconds: Schema.Int }),
  previous_secret_expires_at: Schema.NullOr(Schema.String),
  created_at: Schema.String,
  updated_at: Schema.String
})

export const WebhookResponse = ok(WebhookSubscription)
export const WebhookCreatedResponse = ok(Schema.Struct({
  ...WebhookSubscription.fields,
  secret: Schema.optionalKey(Schema.String).annotate({
    description: "The generated signing secret; shown only here and at rotate-secret. Absent when the request supplied its own"
  }),
  warnings: Schema.Array(Warning)
}))
/** The subscription as changed, with the request's warnings (unknown fields). */
export const WebhookUpdatedResponse = ok(Schema.Struct({ ...WebhookSubscription.fields, warnings: Schema.Array(Warning) }))
/** The one list shape, unpaged: at most 50 subscriptions per account and mode, so `next_cursor` is always null. */
export const WebhookListResponse = listOf("webhooks", WebhookSubscription)
export const WebhookDeletedResponse = ok(Schema.Struct({ id: Schema.String, deleted: Schema.Literal(true) }))
export const SecretRotatedResponse = ok(Schema.Struct({
  id: Schema.String,
  secret: Schema.String,
  previous_secret_expires_at: Schema.String
}))
export const WebhookSettingsResponse = ok(Schema.Struct({ check_in_time: Schema.String, check_out_time: Schema.String }))

export const DeliveryAttempt = Schema.Struct({
  id: Schema.String.annotate({ description: "X-Webhook-Delivery of the attempt" }),
  event_id: Schema.String.annotate({ description: "event_id of the body and X-Webhook-Event-Id: the same for every attempt, resend and replay of one event" }),
  event_type: Schema.String,
  attempt: Schema.Int.annotate({ description: "1 for the first attempt of the event (or of its resend or replay), then one more per retry" }),
  outcome: Schema.Literals(["succeeded", "failed", "gone", "skipped"]).annotate({ description: "succeeded, failed, gone (410: subscription disabled) or skipped" }),
  trigger: Schema.Literals(["event", "test", "resend", "replay"]).annotate({ description: "Why the attempt was made: the event, POST .../test, .../resend or .../replay" }),
  response_status: Schema.NullOr(Schema.Int),
  error: Schema.NullOr(Schema.String),
  duration_ms: Schema.Int,
  next_attempt_at: Schema.NullOr(Schema.String),
  attempted_at: Schema.String
})
export type DeliveryAttempt = typeof DeliveryAttempt.Type
/** The one list shape; `has_more` (the shape before it) stays for one release: use `next_cursor !== null`. */
export const DeliveryListResponse = Schema.Struct({
  ...listOf("deliveries", DeliveryAttempt).fields,
  has_more: Schema.Boolean.annotate({ description: "Deprecated (removed in the next release): the same as data.next_cursor !== null" })
})

/** An attempt in the tenant-wide delivery log: the subscription's attempt with where it went and how its event ended. */
export const TenantDeliveryAttempt = Schema.Struct({
  ...DeliveryAttempt.fields,
  webhook_id: Schema.String.annotate({ description: "The subscription (resend with POST /api/v1/webhooks/{webhook_id}/deliveries/{id}/resend)" }),
  url: Schema.String.annotate({ description: "The subscription's URL now" }),
  contact_id: Schema.NullOr(Schema.String).annotate({ description: "The contact the event is about, when its data names one (kept 14 days with the body)" }),
  last_attempt: Schema.Struct({
    attempt: Schema.Int,
    outcome: DeliveryAttempt.fields.outcome,
    trigger: DeliveryAttempt.fields.trigger,
    response_status: Schema.NullOr(Schema.Int).annotate({ description: "The receiver's HTTP status; null when none came (a timeout, a refused connection)" }),
    error: Schema.NullOr(Schema.String),
    attempted_at: Schema.String
  }).annotate({ description: "The newest attempt of the same event to the same subscription (this one, or a later retry, resend or replay)" })
})
export type TenantDeliveryAttempt = typeof TenantDeliveryAttempt.Type
export const TenantDeliveryListResponse = listOf("deliveries", TenantDeliveryAttempt)

/** The body of `webhook.test` (POST /api/v1/webhooks/{id}/test), sent to that subscription only. */
export const WebhookTestData = Schema.Struct({
  subscription_id: Schema.String,
  message: Schema.String
})
export const WebhookTestWebhooks: ReadonlyArray<readonly [string, Schema.Top]> = [["webhook.test", webhookEnvelope("webhook.test", WebhookTestData)]]

export const TestEventSent = ok(Schema.Struct({
  event_id: Schema.String.annotate({ description: "The test event's event_id (its attempts are in the delivery log under it)" }),
  event_type: Schema.Literal("webhook.test"),
  sequence: Schema.Int,
  subscription_id: Schema.String
}))

export const ResendAccepted = ok(Schema.Struct({
  resend_id: Schema.String.annotate({ description: "Names this resend's attempts in the delivery log (trigger resend)" }),
  event_id: Schema.String.annotate({ description: "The event sent again: same event_id, sequence and body; a new X-Webhook-Delivery" }),
  subscription_id: Schema.String
}))

const ReplayableEventType = oneOf([...WebhookEventTypes, "webhook.test"])

export const ReplayRequest = Schema.Struct({
  since: SafeString.annotate({ format: "date-time", description: "Start of the window (inclusive), within the last 14 days" }),
  until: Schema.optionalKey(SafeString.annotate({ format: "date-time", description: "End of the window (exclusive), after since, at most 14 days after it; default now" })),
  event_types: Schema.optionalKey(Schema.Array(ReplayableEventType).check(Schema.makeFilter((a: ReadonlyArray<string>) =>
    (a.length >= 1 && new Set(a).size === a.length) || "must list 1 or more distinct event types"
  )).annotate({ description: "Only these event types (default: every event emitted to the subscription in the window)" }))
})
export type ReplayRequest = typeof ReplayRequest.Type

export const ReplayAccepted = ok(Schema.Struct({
  replay_id: Schema.String.annotate({ description: "Names this replay's attempts in the delivery log (trigger replay)" }),
  subscription_id: Schema.String,
  since: Schema.String,
  until: Schema.String,
  event_types: Schema.NullOr(Schema.Array(Schema.String)),
  events: Schema.Int.annotate({ description: "Events to be sent again, in the order they were emitted" })
}))
