import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import { boundedInt, FreeFormObject, maxLength, NonEmptyString, oneOf, Uuid } from "./common.ts"
import { Conflict, NotFound, ValidationFailed } from "./errors.ts"
import { Authentication, RequiredScope, ValidationErrors } from "./security.ts"
import { SafeString } from "./text.ts"
import { listOf } from "./list.ts"

// Website sources, managed with a core key (scope website_sources:manage): the three credentials, the origin and
// event allow-lists, consent mode, rate limit, webhook mapping and signing; the delivery log and the event catalogue.

const opt = Schema.optionalKey
const EventName = SafeString.check(Schema.makeFilter((s: string) =>
  (s.length <= 64 && /^[a-z][a-z0-9_]{0,31}(?:\.[a-z][a-z0-9_]{0,31}){0,3}$/.test(s)) ||
  "must be a lowercase dotted name: 1 to 4 segments, each a letter then letters, digits or _, 64 characters in all"))
const Origin = maxLength(300).annotate({ description: "an exact origin: scheme://host[:port], no path, no wildcard" })

const sourceFields = {
  name: NonEmptyString.check(Schema.makeFilter((s: string) => s.length <= 200 || "must be at most 200 characters")),
  allowed_origins: Schema.Array(Origin).check(Schema.isMaxLength(50)),
  allowed_events: opt(Schema.Array(EventName).check(Schema.isMaxLength(200))),
  allowed_hotels: opt(Schema.Array(Uuid).check(Schema.isMaxLength(500))),
  consent_mode: opt(oneOf(["honour", "ignore"] as const)),
  rate_limit_per_minute: opt(boundedInt(1, 100_000)),
  mapping: opt(FreeFormObject().annotate({ description: "contract field → { path } | { value } | { template }, with optional transform and map" }))
}

export const CreateSourceRequest = Schema.Struct({ ...sourceFields, signing: opt(Schema.Boolean) })
export type CreateSourceRequest = typeof CreateSourceRequest.Type

export const PatchSourceRequest = Schema.Struct({
  name: opt(sourceFields.name),
  allowed_origins: opt(sourceFields.allowed_origins),
  allowed_events: sourceFields.allowed_events,
  allowed_hotels: sourceFields.allowed_hotels,
  consent_mode: sourceFields.consent_mode,
  rate_limit_per_minute: sourceFields.rate_limit_per_minute,
  mapping: opt(Schema.NullOr(FreeFormObject())),
  enabled: opt(Schema.Boolean.annotate({ description: "false pauses the source: its requests are answered 403 source_disabled" }))
})
export type PatchSourceRequest = typeof PatchSourceRequest.Type

const KeyKind = Schema.Literals(["server", "browser", "webhook"])
export const KeyView = Schema.Struct({ key_id: Schema.String, kind: KeyKind, prefix: Schema.String, created_at: Schema.String })

export const SourceView = Schema.Struct({
  source_id: Schema.String,
  name: Schema.String,
  allowed_origins: Schema.Array(Schema.String),
  allowed_events: Schema.Array(Schema.String),
  allowed_hotels: Schema.Array(Schema.String),
  consent_mode: Schema.String,
  signing: Schema.Boolean,
  rate_limit_per_minute: Schema.Number,
  mapping: Schema.NullOr(Schema.Record(Schema.String, Schema.Unknown)),
  enabled: Schema.Boolean,
  webhook_url: Schema.String,
  keys: Schema.Array(KeyView),
  created_at: Schema.String,
  updated_at: Schema.String
})
export type SourceView = typeof SourceView.Type

export const SourceCreated = Schema.Struct({
  source_id: Schema.String,
  server_key: Schema.String,
  browser_key: Schema.String,
  webhook_token: Schema.String,
  webhook_url: Schema.String,
  signing_secret: opt(Schema.String),
  source: SourceView
})

export const KeyCreated = Schema.Struct({ key_id: Schema.String, kind: KeyKind, key: Schema.String, prefix: Schema.String, created_at: Schema.String })
export const SecretRotated = Schema.Struct({ signing_secret: Schema.String, previous_valid_until: Schema.NullOr(Schema.String) })

export const DeliveryView = Schema.Struct({
  delivery_id: Schema.String,
  received_at: Schema.String,
  credential: Schema.String,
  status: Schema.Number,
  error_code: Schema.NullOr(Schema.String),
  origin: Schema.NullOr(Schema.String),
  ip: Schema.NullOr(Schema.String),
  user_agent: Schema.NullOr(Schema.String),
  body_bytes: Schema.Number,
  body_sha256: Schema.NullOr(Schema.String),
  test: Schema.Boolean,
  received: Schema.Number,
  accepted: Schema.Number,
  duplicate: Schema.Number,
  rejected: Schema.Number,
  results: Schema.NullOr(Schema.Array(Schema.Unknown))
})
const deprecated = (what: string) => ({ description: `deprecated: ${what}, kept one release; read data` })
/** The delivery log in the one list shape; the old top-level `deliveries` and `next_cursor` are kept one release. */
export const DeliveryPage = Schema.Struct({
  ...listOf("deliveries", DeliveryView).fields,
  deliveries: Schema.Array(DeliveryView).annotate(deprecated("the same list as data.deliveries")),
  next_cursor: Schema.NullOr(Schema.String).annotate(deprecated("the same as data.next_cursor"))
})

export const CatalogueEntry = Schema.Struct({
  name: Schema.String,
  description: Schema.NullOr(Schema.String),
  declared: Schema.Boolean,
  status: Schema.Literals(["received", "not received"]),
  first_received_at: Schema.NullOr(Schema.String)
})
/** The catalogue (unpaged: a source's event names are few) in the one list shape; the old top-level `events` is kept one release. */
export const CatalogueList = Schema.Struct({
  ...listOf("events", CatalogueEntry).fields,
  events: Schema.Array(CatalogueEntry).annotate(deprecated("the same list as data.events"))
})
/** The sources (unpaged: an account has a site or app per source, a few) in the one list shape; the old top-level `sources` is kept one release. */
export const SourceList = Schema.Struct({
  ...listOf("sources", SourceView).fields,
  sources: Schema.Array(SourceView).annotate(deprecated("the same list as data.sources"))
})
export const DeclareEventRequest = Schema.Struct({ name: EventName, description: opt(maxLength(500)) })

const source = { id: SafeString }

export const WebsiteSourcesGroup = HttpApiGroup.make("websiteSources")
  .add(HttpApiEndpoint.post("create", "/api/v1/website-sources", {
    payload: CreateSourceRequest, success: SourceCreated.pipe(HttpApiSchema.status(201)), error: ValidationFailed
  }).annotate(RequiredScope, "website_sources:manage").annotate(OpenApi.Summary, "A website source and its server key, browser key and webhook token (and signing secret), shown once"))
  .add(HttpApiEndpoint.get("list", "/api/v1/website-sources", { success: SourceList }).annotate(RequiredScope, "website_sources:manage").annotate(OpenApi.Summary, "The website sources of this account and mode"))
  .add(HttpApiEndpoint.get("get", "/api/v1/website-sources/:id", { params: source, success: SourceView, error: NotFound }).annotate(RequiredScope, "website_sources:manage").annotate(OpenApi.Summary, "One website source (never its keys or secret)"))
  .add(HttpApiEndpoint.patch("update", "/api/v1/website-sources/:id", {
    params: source, payload: PatchSourceRequest, success: SourceView, error: [ValidationFailed, NotFound]
  }).annotate(RequiredScope, "website_sources:manage").annotate(OpenApi.Summary, "Change a source; enabled: false pauses it (403 source_disabled)"))
  .add(HttpApiEndpoint.delete("remove", "/api/v1/website-sources/:id", { params: source, success: SourceView, error: NotFound }).annotate(RequiredScope, "website_sources:manage").annotate(OpenApi.Summary, "Delete a source: its credentials stop working (403 source_disabled)"))
  .add(HttpApiEndpoint.post("addKey", "/api/v1/website-sources/:id/keys", {
    params: source, payload: Schema.Struct({ kind: oneOf(["server", "browser", "webhook"] as const) }),
    success: KeyCreated.pipe(HttpApiSchema.status(201)), error: [ValidationFailed, NotFound, Conflict]
  }).annotate(RequiredScope, "website_sources:manage").annotate(OpenApi.Summary, "Another key of a kind, shown once; at most two live per kind"))
  .add(HttpApiEndpoint.delete("revokeKey", "/api/v1/website-sources/:id/keys/:key_id", {
    params: { id: SafeString, key_id: SafeString }, success: KeyView, error: NotFound
  }).annotate(RequiredScope, "website_sources:manage").annotate(OpenApi.Summary, "Revoke a key (the old one, once its replacement is live)"))
  .add(HttpApiEndpoint.post("rotateSecret", "/api/v1/website-sources/:id/rotate-signing-secret", {
    params: source, success: SecretRotated, error: NotFound
  }).annotate(RequiredScope, "website_sources:manage").annotate(OpenApi.Summary, "A new signing secret, shown once; the previous one keeps verifying for 24 h"))
  .add(HttpApiEndpoint.get("deliveries", "/api/v1/website-sources/:id/deliveries", {
    params: source, query: { limit: opt(SafeString), cursor: opt(SafeString) }, success: DeliveryPage, error: [ValidationFailed, NotFound]
  }).annotate(RequiredScope, "website_sources:manage").annotate(OpenApi.Summary, "Every request of the last 14 days tied to this source, newest first; limit 1-100 (25), cursor = next_cursor"))
  .add(HttpApiEndpoint.get("catalogue", "/api/v1/website-sources/:id/events", { params: source, success: CatalogueList, error: NotFound }).annotate(RequiredScope, "website_sources:manage").annotate(OpenApi.Summary, "The event names of this source: declared or received"))
  .add(HttpApiEndpoint.post("declare", "/api/v1/website-sources/:id/events", {
    params: source, payload: DeclareEventRequest, success: CatalogueEntry.pipe(HttpApiSchema.status(201)), error: [ValidationFailed, NotFound]
  }).annotate(RequiredScope, "website_sources:manage").annotate(OpenApi.Summary, "Declare a custom event in advance: it shows as not received until one arrives"))
  .middleware(ValidationErrors)
  .middleware(Authentication)
