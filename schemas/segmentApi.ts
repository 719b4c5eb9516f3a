import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, HttpApiMiddleware, HttpApiSchema, OpenApi } from "effect/http-api"
import { maxLength, NonEmptyString, oneOf } from "./common.ts"
import { NotFound, PreconditionFailed, Unprocessable, ValidationFailed } from "./errors.ts"
import { listOf, ok, PageQuery } from "./list.ts"
import { Authentication, RequiredScope } from "./security.ts"
import { SegmentDefinition } from "./segment.ts"
import { SafeString } from "./text.ts"

// The segments API (issue 25): saved audience definitions and the preview of who they match now.

const opt = Schema.optionalKey

/** Schema failures of this group: a body that is not a valid definition is a 422 naming each path, as the checks' are. */
export class SegmentValidationErrors extends HttpApiMiddleware.Service<SegmentValidationErrors>()("app/http/SegmentValidationErrors", {
  error: [ValidationFailed, Unprocessable]
}) {}

const Name = NonEmptyString.check(Schema.isMaxLength(200))
const Description = Schema.NullOr(maxLength(2_000))

export const CreateSegmentRequest = Schema.Struct({
  name: Name,
  description: opt(Description),
  definition: SegmentDefinition
})
export type CreateSegmentRequest = typeof CreateSegmentRequest.Type

export const PatchSegmentRequest = Schema.Struct({
  name: opt(Name),
  description: opt(Description),
  definition: opt(SegmentDefinition)
}).annotate({ description: "The fields to change; a changed definition is checked whole and saved as the next version" })
export type PatchSegmentRequest = typeof PatchSegmentRequest.Type

export const SegmentView = Schema.Struct({
  segment_id: Schema.String,
  name: Schema.String,
  description: Schema.NullOr(Schema.String),
  definition: SegmentDefinition,
  /** Counts saves (1 when created): the ETag of GET and what If-Match names. */
  version: Schema.Number,
  created_at: Schema.String,
  updated_at: Schema.String
})
export type SegmentView = typeof SegmentView.Type

export const PreviewCategories = ["marketing", "utility"] as const

export const PreviewRequest = Schema.Struct({
  definition: opt(SegmentDefinition.annotate({ description: "A definition to try, unsaved; or name a saved one with segment_id" })),
  segment_id: opt(SafeString),
  category: opt(oneOf(PreviewCategories).annotate({ description: "The category the reachable counts are for: `marketing` (default) needs consent and no opt-out" }))
}).annotate({ description: "Exactly one of `definition` and `segment_id`" })
export type PreviewRequest = typeof PreviewRequest.Type

export const SampleContact = Schema.Struct({
  contact_id: Schema.String,
  first_name: Schema.NullOr(Schema.String),
  last_name: Schema.NullOr(Schema.String),
  email: Schema.NullOr(Schema.String),
  phone: Schema.NullOr(Schema.String),
  language: Schema.String
})

export const PreviewView = Schema.Struct({
  /** Contacts of the account and mode the definition matches at `evaluated_at`. */
  count: Schema.Number,
  /** Of them, those a message of `category` could reach on each channel (address, not suppressed, consent for marketing). */
  reachable: Schema.Struct({ email: Schema.Number, whatsapp: Schema.Number }),
  category: Schema.Literals(PreviewCategories),
  /** Up to 20 of the matching contacts, the most recently created first. */
  sample: Schema.Array(SampleContact),
  evaluated_at: Schema.String
})
export type PreviewView = typeof PreviewView.Type

const segment = { id: SafeString }
const etag = { "if-match": opt(SafeString.annotate({ description: "the ETag of GET: refused with 412 when another version is current" })) }

export const SegmentsGroup = HttpApiGroup.make("segments")
  .add(
    HttpApiEndpoint.post("create", "/api/v1/segments", {
      payload: CreateSegmentRequest,
      success: ok(SegmentView).pipe(HttpApiSchema.status(201)).annotate({ description: "Saved as version 1" }),
      error: [Unprocessable]
    }).annotate(RequiredScope, "segments:write")
      .annotate(OpenApi.Summary, "Save a segment; a definition that does not check is refused with 422 naming each path in the tree")
  )
  .add(
    HttpApiEndpoint.get("list", "/api/v1/segments", { query: PageQuery, success: listOf("segments", SegmentView), error: ValidationFailed })
      .annotate(RequiredScope, "guests:read")
      .annotate(OpenApi.Summary, "The segments of this account and mode, newest first (limit 1-100, default 25)")
  )
  .add(
    HttpApiEndpoint.get("get", "/api/v1/segments/:id", { params: segment, success: ok(SegmentView), error: NotFound })
      .annotate(RequiredScope, "guests:read")
      .annotate(OpenApi.Summary, "One segment with its definition; the ETag names its version")
  )
  .add(
    HttpApiEndpoint.patch("update", "/api/v1/segments/:id", {
      params: segment,
      headers: etag,
      payload: PatchSegmentRequest,
      success: ok(SegmentView),
      error: [NotFound, PreconditionFailed, Unprocessable]
    }).annotate(RequiredScope, "segments:write")
      .annotate(OpenApi.Summary, "Change a segment's name, description or definition (checked whole); If-Match guards")
  )
  .add(
    HttpApiEndpoint.post("preview", "/api/v1/segments/preview", {
      payload: PreviewRequest,
      success: ok(PreviewView),
      error: [NotFound, Unprocessable]
    }).annotate(RequiredScope, "guests:read")
      .annotate(OpenApi.Summary, "Who a definition (or a saved segment) matches now: the count, the reachable per channel and 20 contacts")
  )
  .middleware(SegmentValidationErrors)
  .middleware(Authentication)
