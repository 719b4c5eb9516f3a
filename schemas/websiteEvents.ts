import { Schema } from "effect"
import { boundedInt } from "./common.ts"
import { DocumentedFreeForm, SafeString } from "./text.ts"

// The website-event ingestion wire, for the document: `POST /api/v1/website-events` and the source webhooks are raw
// routes (a beacon posts text/plain, a signature covers the raw bytes, errors have the family's own shape), judged by
// core/website/contract.ts. These schemas describe that contract; test/schemas/websiteEvents.test.ts holds them to it.

const opt = Schema.optionalKey
const text = (min: number, max: number) => SafeString.check(Schema.isMinLength(min), Schema.isMaxLength(max))
const matching = (min: number, max: number, pattern: RegExp, message: string) => text(min, max).check(Schema.isPattern(pattern, { message }))
const DateTime = text(17, 40).annotate({ description: "a date-time with an offset, e.g. 2026-05-01T10:00:00Z" })
const DateOnly = matching(10, 10, /^\d{4}-\d{2}-\d{2}$/u, "must be a date written YYYY-MM-DD")
const Bounded = (min: number, max: number) => Schema.Finite.check(Schema.isGreaterThanOrEqualTo(min), Schema.isLessThanOrEqualTo(max))

const Contact = Schema.Struct({
  email: opt(text(1, 254)),
  phone: opt(matching(6, 40, /^\+?\d[\d\s().-]{5,30}$/u, "must be a phone number with its country code")),
  first_name: opt(text(1, 100)),
  last_name: opt(text(1, 100)),
  language: opt(matching(2, 10, /^[A-Za-z]{2}(?:[-_](?:[A-Za-z]{2}|\d{3}))?$/u, "two letters with an optional region"))
}).annotate({ description: "Who the visitor is; email lower-cased and phone written E.164 when stored" })

const Consent = Schema.Struct({
  email_marketing: Schema.Boolean,
  text: opt(text(10, 2000)),
  captured_at: opt(DateTime),
  language: opt(text(1, 10)),
  form_id: opt(text(1, 100))
}).annotate({ description: "Consent evidence shown to the visitor (kept as the source's consent_mode says)" })

const Context = Schema.Struct({
  hotel_id: opt(matching(36, 36, /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/iu, "a UUID")),
  hotel_code: opt(text(1, 50)),
  hotel_name: opt(text(1, 200)),
  stage: opt(Schema.Literals(["dates", "room", "extras", "details", "payment"])),
  check_in: opt(DateOnly),
  check_out: opt(DateOnly),
  adults: opt(boundedInt(0, 30)),
  children: opt(boundedInt(0, 30)),
  rooms: opt(boundedInt(1, 20)),
  room_name: opt(text(1, 200)),
  rate_name: opt(text(1, 200)),
  value: opt(Bounded(0, 10_000_000)),
  currency: opt(matching(3, 3, /^[A-Z]{3}$/u, "three capital letters (ISO 4217)")),
  cart_id: opt(text(1, 200)),
  session_id: opt(text(1, 200)),
  resume_url: opt(text(1, 2048).annotate({ description: "an https link back to the cart" })),
  page_url: opt(text(1, 2048)),
  referrer: opt(text(1, 2048))
})

const PropertyName = Schema.String.check(Schema.isPattern(/^[a-z0-9_]{1,64}$/u, { message: "lowercase letters, digits and _ (1 to 64)" }))
const Properties = Schema.Record(PropertyName, Schema.Union([text(0, 500), Bounded(-Number.MAX_VALUE, Number.MAX_VALUE), Schema.Boolean]))
  .check(Schema.isMaxProperties(25))

export const WebsiteEvent = Schema.Struct({
  event: matching(1, 64, /^[a-z][a-z0-9_]{0,31}(?:\.[a-z][a-z0-9_]{0,31}){0,3}$/u, "a lowercase dotted name, 1 to 4 segments"),
  occurred_at: opt(DateTime.annotate({ description: "at most 7 days old and 5 minutes ahead of the server's clock" })),
  idempotency_key: opt(text(1, 200).annotate({ description: "a repeat is answered duplicate with the first event_id" })),
  contact: opt(Contact),
  consent: opt(Consent),
  context: opt(Context),
  properties: opt(Properties),
  test: opt(Schema.Boolean)
}).annotate({ description: "One website event: strict, an unknown key at any level is refused" })

export const WebsiteEventsRequest = Schema.Union([
  WebsiteEvent,
  Schema.Struct({ events: Schema.Array(WebsiteEvent).check(Schema.isMinLength(1), Schema.isMaxLength(50)) })
]).annotate({ description: "One event, or { events: [1..50 events] }" })

/**
 * A source webhook takes any JSON object (its mapping reads the paths it names), or an array of up to 50 as a batch:
 * free-form, bounded by the 256 KB body limit (the documentation's x-free-form, as FreeFormObject writes it).
 */
const AnyObject = DocumentedFreeForm(256 * 1024)
export const WebsiteHookRequest = Schema.Union([AnyObject, Schema.Array(AnyObject).check(Schema.isMinLength(1), Schema.isMaxLength(50))])
  .annotate({ description: "The partner's own JSON (mapped by the source's mapping, then the strict contract), or an array of up to 50" })

const Message = Schema.Struct({ code: Schema.String, message: Schema.String })
const EventResult = Schema.Struct({
  index: Schema.Int,
  status: Schema.Literals(["accepted", "duplicate", "rejected"]),
  code: Schema.String,
  message: Schema.String,
  event_id: Schema.NullOr(Schema.String),
  contact: Schema.Literals(["matched", "created", "none"]),
  warnings: Schema.Array(Message),
  issues: opt(Schema.Array(Schema.Struct({ field: Schema.String, message: Schema.String }))),
  mapping_warnings: opt(Schema.Array(Schema.Struct({
    target: Schema.String,
    reason: Schema.Literals(["path_not_found", "transform_failed", "unsupported_value", "unsafe_path"]),
    detail: opt(Schema.String)
  })))
})

export const WebsiteEventsResult = Schema.Struct({
  received: Schema.Int,
  accepted: Schema.Int,
  duplicate: Schema.Int,
  rejected: Schema.Int,
  results: Schema.Array(EventResult)
}).annotate({ description: "One result per event, in order: accepted, duplicate (of an earlier idempotency_key) or rejected" })

export const WEBSITE_ERROR_CODES = [
  "invalid_json", "invalid_body", "body_too_large", "batch_too_large", "batch_empty", "unauthorized", "source_disabled",
  "feature_disabled", "origin_not_allowed", "signature_missing", "signature_invalid", "signature_expired", "rate_limited",
  "unavailable", "internal_error"
] as const

export const WebsiteEventsError = Schema.Struct({
  error: Schema.Struct({
    code: Schema.Literals(WEBSITE_ERROR_CODES),
    message: Schema.String,
    detail: opt(Schema.String),
    fix: Schema.String,
    docs: Schema.String,
    // The request's X-Request-Id, set by the edge on every error answer (src/http/requestId.ts).
    request_id: Schema.optionalKey(Schema.String)
  })
}).annotate({ description: "The website-events error shape: what went wrong, how to fix it, where it is documented" })

export const WebsiteHookReadiness = Schema.Struct({
  ready: Schema.Literal(true),
  accepts: Schema.String,
  signature_required: Schema.Boolean,
  test: opt(Schema.Literal(true)),
  docs: Schema.String
})

export const SdkIntegrity = Schema.Struct({
  version: Schema.String,
  url: Schema.String,
  integrity: Schema.String.annotate({ description: "sha384-… of the bytes served: the script tag's integrity attribute" }),
  bytes: Schema.Int,
  gzip_bytes: Schema.Int
})
