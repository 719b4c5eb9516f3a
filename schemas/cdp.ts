import { Schema, Struct } from "effect"
import { DateTimeWithOffset, FreeFormObject, maxLength, NonEmptyString, oneOf, SafeString } from "./common.ts"
import { BatchItems } from "./text.ts"
import { batchResponseOf, ReservationRequest, ReservationResult, SkippedResult } from "./reservation.ts"

// The CDP's public shapes: tracking settings, visitor events, identify, post-checkout reservations and bulk jobs.

const opt = Schema.optionalKey
export const CDP_EVENTS_MAX = 100
export const CDP_BATCH_MAX = 100
export const CDP_BULK_MAX = 5_000

/** A browser-made identifier (visitor, session, cart): 1-200 characters. */
export const ClientId = NonEmptyString.check(Schema.makeFilter((s: string) => s.length <= 200 || "must be at most 200 characters"))

/** A domain name (lower-cased by the edge): letters, digits, hyphens and dots, no scheme, port or path. */
const Domain = SafeString.check(Schema.makeFilter((s: string) =>
  /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)*[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/i.test(s) ||
  "must be a domain name such as hotel.com (no scheme, port or path)"))

export const CdpSettingsRequest = Schema.Struct({
  visitor_tracking: opt(Schema.Boolean),
  allowed_domains: opt(Schema.Array(Domain).check(Schema.makeFilter((a: ReadonlyArray<string>) => a.length <= 50 || "at most 50 domains")))
})
export type CdpSettingsRequest = typeof CdpSettingsRequest.Type

export const CdpSettings = Schema.Struct({ visitor_tracking: Schema.Boolean, allowed_domains: Schema.Array(Schema.String) })
export type CdpSettings = typeof CdpSettings.Type
export const CdpSettingsResponse = Schema.Struct({ success: Schema.Literal(true), data: CdpSettings })

export const Device = Schema.Struct({
  type: opt(oneOf(["desktop", "mobile", "tablet"])),
  browser: opt(maxLength(200)),
  os: opt(maxLength(200)),
  language: opt(maxLength(35))
})
export const Utm = Schema.Struct({
  source: opt(maxLength(200)),
  medium: opt(maxLength(200)),
  campaign: opt(maxLength(200)),
  term: opt(maxLength(200)),
  content: opt(maxLength(200))
})
export type Utm = typeof Utm.Type

export const CdpEventTypes = ["page_view", "scroll", "click", "form_start", "form_submit", "identify", "custom"] as const
export const CdpEvent = Schema.Struct({
  type: oneOf(CdpEventTypes),
  url: opt(maxLength(2_000)),
  title: opt(maxLength(500)),
  data: opt(FreeFormObject({ maxBytes: 8 * 1024 })),
  ts: DateTimeWithOffset
})
export type CdpEvent = typeof CdpEvent.Type

export const CdpEventsRequest = Schema.Struct({
  visitor_id: ClientId,
  session_id: ClientId,
  device: opt(Device),
  utm: opt(Utm),
  referrer: opt(maxLength(2_000)),
  events: Schema.Array(CdpEvent).check(Schema.makeFilter((a: ReadonlyArray<unknown>) =>
    (a.length >= 1 && a.length <= CDP_EVENTS_MAX) || `must hold 1 to ${CDP_EVENTS_MAX} events`))
})
export type CdpEventsRequest = typeof CdpEventsRequest.Type
export const CdpEventsAccepted = Schema.Struct({ success: Schema.Literal(true), data: Schema.Struct({ accepted: Schema.Number }) })

export const IdentifyRequest = Schema.Struct({
  visitor_id: ClientId,
  session_id: opt(ClientId),
  email: opt(maxLength(254)),
  phone: opt(maxLength(50)),
  first_name: opt(maxLength(200)),
  last_name: opt(maxLength(200))
}).check(Schema.makeFilter((r) => r.email !== undefined || r.phone !== undefined || { path: ["email"], issue: "email or phone is required" }))
export type IdentifyRequest = typeof IdentifyRequest.Type

export const IdentifyResult = Schema.Struct({
  contact_id: Schema.String,
  is_new: Schema.Boolean,
  visitor_linked: Schema.Boolean,
  /** linked: first link; already_linked: the same contact again; reassigned: the visitor now points at this contact. */
  visitor: Schema.Literals(["linked", "already_linked", "reassigned"]),
  backfilled_events: Schema.Number
})
export type IdentifyResult = typeof IdentifyResult.Type
export const IdentifyResponse = Schema.Struct({ success: Schema.Literal(true), data: IdentifyResult })

/** The core Reservation body (same validation and limits) plus the visit it came from. */
export const CdpReservationRequest = ReservationRequest.mapFields(Struct.assign({
  visitor_id: opt(ClientId),
  session_id: opt(ClientId),
  cart_id: opt(ClientId),
  utm: opt(Utm)
}), { unsafePreserveChecks: true })
export type CdpReservationRequest = typeof CdpReservationRequest.Type

export const CheckoutLink = Schema.Struct({
  visitor_linked: Schema.Boolean,
  sessions_stitched: Schema.Number,
  checkout_event_id: Schema.NullOr(Schema.String)
})
export type CheckoutLink = typeof CheckoutLink.Type
export const CdpReservationResult = Schema.Union([
  Schema.Struct({ ...ReservationResult.fields, ...CheckoutLink.fields }),
  SkippedResult
])
export type CdpReservationResult = typeof CdpReservationResult.Type
export const CdpReservationResponse = Schema.Struct({ success: Schema.Literal(true), data: CdpReservationResult })
/** A new reservation: the same body, answered 201 (a plain CdpReservationResponse is answered 200). */
export class CdpReservationCreated extends Schema.Class<CdpReservationCreated>("CdpReservationCreated")(CdpReservationResponse) {}

export const CdpBatchRequest = Schema.Struct({ reservations: BatchItems("CdpReservationRequest", "1 to 100 CDP reservations") })
export const CdpBatchResponse = batchResponseOf(CdpReservationResult)
const ItemError = Schema.Struct({ message: Schema.String, code: Schema.String, details: Schema.Record(Schema.String, Schema.Unknown) })

export const CdpBulkRequest = Schema.Struct({
  reservations: BatchItems("CdpReservationRequest", "1 to 5000 CDP reservations, each judged when processed"),
  idempotency_key: opt(maxLength(200))
})
export const BatchStatuses = ["queued", "running", "completed", "failed"] as const
export const CdpBulkAccepted = Schema.Struct({
  success: Schema.Literal(true),
  data: Schema.Struct({ batch_id: Schema.String, status: Schema.Literals(BatchStatuses), total: Schema.Number, status_url: Schema.String })
})
export const BatchStatus = Schema.Struct({
  batch_id: Schema.String,
  status: Schema.Literals(BatchStatuses),
  total: Schema.Number,
  processed: Schema.Number,
  succeeded: Schema.Number,
  failed: Schema.Number,
  errors: Schema.Array(Schema.Struct({ index: Schema.Number, error: ItemError })),
  created_at: Schema.String,
  started_at: Schema.NullOr(Schema.String),
  completed_at: Schema.NullOr(Schema.String)
})
export type BatchStatus = typeof BatchStatus.Type
export const BatchStatusResponse = Schema.Struct({ success: Schema.Literal(true), data: BatchStatus })
