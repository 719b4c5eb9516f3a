import { Schema } from "effect"
import { HttpApi, HttpApiEndpoint, HttpApiGroup, HttpApiMiddleware, HttpApiSchema, OpenApi } from "effect/http-api"
import { Uuid } from "./common.ts"
import { Conflict, NotFound, Unprocessable, ValidationFailed } from "./errors.ts"
import { listOf, ok, PageQuery } from "./list.ts"
import { Authentication, RequiredScope, ValidationErrors } from "./security.ts"
import { SafeString } from "./text.ts"

// Privacy requests (issue 26): a data subject's export, erasure, suppression and its lifting.

const opt = Schema.optionalKey

/** Schema failures of this group: 422 naming each field (src/http/definitionErrors.ts). */
export class PrivacyValidationErrors extends HttpApiMiddleware.Service<PrivacyValidationErrors>()("app/http/PrivacyValidationErrors", {
  error: [ValidationFailed, Unprocessable]
}) {}

export const PrivacyRequestTypes = ["export", "erase", "suppress", "unsuppress"] as const
export type PrivacyRequestType = typeof PrivacyRequestTypes[number]
export const PrivacyRequestStatuses = ["received", "running", "completed", "partial", "failed"] as const
export type PrivacyRequestStatus = typeof PrivacyRequestStatuses[number]

const Identifier = SafeString.check(Schema.isMinLength(1), Schema.isMaxLength(320))

/** Exactly one way of naming the person; which is checked when the request is taken (422 naming `subject`). */
export const PrivacySubject = Schema.Struct({
  contact_id: opt(Uuid.annotate({ description: "A contact of this account and mode" })),
  email: opt(Identifier.annotate({ description: "Matched case-insensitively" })),
  phone: opt(Identifier.annotate({ description: "Any accepted format of the number (E.164 after normalisation)" }))
}).annotate({ description: "The data subject: exactly one of contact_id, email, phone" })
export type PrivacySubject = typeof PrivacySubject.Type

export const CreatePrivacyRequest = Schema.Struct({
  type: Schema.Literals(PrivacyRequestTypes).annotate({
    description: "export: one document of everything held on the subject; erase: suppress, then delete every row and retained stream " +
      "message naming the subject; suppress: nothing re-creates or reaches the subject until unsuppressed; unsuppress: lift it"
  }),
  subject: PrivacySubject,
  reference: opt(SafeString.check(Schema.isMinLength(1), Schema.isMaxLength(200)).annotate({
    description: "The controller's own reference (a ticket id): a request with a reference already used answers that request again"
  }))
})
export type CreatePrivacyRequest = typeof CreatePrivacyRequest.Type

export const PrivacyResult = Schema.Struct({
  /** The store acted on: a table (`contacts`, `messages`, ...), `stream:<name>`, `suppressions`, `webhooks`. */
  store: Schema.String,
  /** `deleted`, `anonymised`, `exported`, `suppressed`, `unsuppressed`, `notified`. */
  action: Schema.String,
  count: Schema.Number
})

export const PrivacyRequestView = Schema.Struct({
  request_id: Schema.String,
  type: Schema.Literals(PrivacyRequestTypes),
  /** How the subject was named (the value itself is never shown back). */
  subject_kind: Schema.Literals(["contact_id", "email", "phone"]),
  reference: Schema.NullOr(Schema.String),
  status: Schema.Literals(PrivacyRequestStatuses),
  /** The contacts the subject resolved to: the one named, or those holding its phone or email. */
  contact_ids: Schema.Array(Schema.String),
  /**
   * Contacts an identity conflict joins to the subject that its phone and email do not reach (a source sent the
   * subject's phone with another contact's email): possibly the same person, possibly someone else. Not acted on:
   * name them in a request of their own when they are the same person.
   */
  related_contact_ids: Schema.Array(Schema.String),
  results: Schema.Array(PrivacyResult),
  /** An export's document: a signed link valid for an hour, renewed by each read, until the document expires. */
  download_url: Schema.NullOr(Schema.String),
  download_expires_at: Schema.NullOr(Schema.String),
  error: Schema.NullOr(Schema.String),
  key_id: Schema.String,
  created_at: Schema.String,
  started_at: Schema.NullOr(Schema.String),
  completed_at: Schema.NullOr(Schema.String)
})
export type PrivacyRequestView = typeof PrivacyRequestView.Type

export const PrivacyRequestAccepted = Schema.Struct({
  request_id: Schema.String,
  status: Schema.Literals(PrivacyRequestStatuses)
})

const READ = ["privacy:read", "privacy:write"] as const

export const PrivacyGroup = HttpApiGroup.make("privacy")
  .add(
    HttpApiEndpoint.post("create", "/api/v1/privacy/requests", {
      payload: CreatePrivacyRequest,
      success: ok(PrivacyRequestAccepted).pipe(HttpApiSchema.status(202)),
      error: [Unprocessable, Conflict]
    }).annotate(RequiredScope, "privacy:write")
      .annotate(OpenApi.Summary, "Ask for a data subject's export, erasure, suppression or its lifting; suppression holds from this answer")
  )
  .add(
    HttpApiEndpoint.get("list", "/api/v1/privacy/requests", {
      query: { ...PageQuery, status: opt(SafeString) },
      success: listOf("requests", PrivacyRequestView),
      error: ValidationFailed
    }).annotate(RequiredScope, READ)
      .annotate(OpenApi.Summary, "The privacy requests of this account and mode, newest first (limit 1-100, default 25); filter status")
  )
  .add(
    HttpApiEndpoint.get("get", "/api/v1/privacy/requests/:request_id", {
      params: { request_id: SafeString },
      success: ok(PrivacyRequestView),
      error: NotFound
    }).annotate(RequiredScope, READ)
      .annotate(OpenApi.Summary, "One privacy request: status, per-store results, and an export's download link")
  )
  .middleware(PrivacyValidationErrors)
  .middleware(Authentication)
  // An erasure is for good: a key the contract does not know (a misspelt `reference`, a `dry_run` it does not have) is
  // refused, never dropped while the rest is carried out.
  .annotate(HttpApi.PayloadParseOptions, { errors: "all", onExcessProperty: "error" })

/** The export: one document, a section per store, each a list of the rows that store holds on the subject. */
export const PrivacyExportDocument = Schema.Struct({
  format: Schema.Literal("gep.privacy.export/v1"),
  request_id: Schema.String,
  generated_at: Schema.String,
  subject: Schema.Struct({ contact_ids: Schema.Array(Schema.String) }),
  stores: Schema.Record(Schema.String, Schema.Array(Schema.Unknown))
})
export type PrivacyExportDocument = typeof PrivacyExportDocument.Type

/**
 * An export's download: the link itself is the credential (signed with the privacy key, valid for an hour), so it can
 * be handed to the person it concerns; any fault (a bad signature, an expired link, a document no longer kept) is the
 * same 404, so a guessed link learns nothing.
 */
export const PrivacyExportGroup = HttpApiGroup.make("privacyExport")
  .add(
    HttpApiEndpoint.get("download", "/api/v1/privacy/exports/:request_id", {
      params: { request_id: SafeString },
      query: { expires: SafeString, signature: SafeString },
      success: PrivacyExportDocument.annotate({ description: "The subject's data, a section per store (JSON, sent as an attachment)" }),
      error: NotFound
    }).annotate(OpenApi.Summary, "Download an export's document by its signed link (no API key: the link is the credential)")
  )
  .middleware(ValidationErrors)
