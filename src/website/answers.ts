import { HttpServerResponse } from "effect/http"
import type { Issue } from "../../core/website/contract.ts"
import type { MappingWarning } from "../../core/website/mapping.ts"
import type { WEBSITE_ERROR_CODES } from "../../schemas/websiteEvents.ts"
import { corsHeaders } from "../http/cors.ts"

// The website-events answers: request-level errors `{ error: { code, message, detail?, fix, docs } }` and the Result.

/** The codes the contract declares (schemas/websiteEvents.ts); each has its entry below. */
export type RequestErrorCode = typeof WEBSITE_ERROR_CODES[number]

/** The catalogue of request-level errors: each code's status, meaning and fix (the page at DOCS is made from it). */
export const REQUEST_ERRORS: Readonly<Record<RequestErrorCode, { status: number; message: string; fix: string }>> = {
  invalid_json: { status: 400, message: "The body is not JSON", fix: "Send one JSON event object or { \"events\": [...] }, UTF-8 encoded" },
  invalid_body: { status: 422, message: "The body is neither one event nor an events array", fix: "Send one event object or { \"events\": [1..50 events] } and nothing else" },
  body_too_large: { status: 413, message: "The body is too large", fix: "Keep a request under 64 KB (256 KB for a webhook); split the events into several requests" },
  batch_too_large: { status: 413, message: "More than 50 events in one request", fix: "Send at most 50 events per request" },
  batch_empty: { status: 422, message: "The events array is empty", fix: "Send 1 to 50 events, or do not send the request" },
  unauthorized: { status: 401, message: "Credential missing, unknown, revoked or expired", fix: "Send the server key as Authorization: Bearer svc_sk_..., or the browser key as X-SVC-Key or ?key=svc_pk_..." },
  source_disabled: { status: 403, message: "This website source is paused or deleted", fix: "Enable the source (PATCH /api/v1/website-sources/{id} with enabled: true) or use another source's key" },
  feature_disabled: { status: 403, message: "Website events are switched off for this account", fix: "Ask the account owner to switch website events on" },
  origin_not_allowed: { status: 403, message: "This browser key may not be used from this origin", fix: "Add the exact origin (scheme://host[:port]) to the source's allowed_origins" },
  signature_missing: { status: 401, message: "This source requires a signature and none was sent", fix: "Send X-SVC-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of '<t>.<raw body>'>" },
  signature_invalid: { status: 401, message: "The signature is malformed or does not match", fix: "Sign the exact raw body bytes as '<t>.<raw body>' with the source's current signing secret" },
  signature_expired: { status: 401, message: "The signature's timestamp is more than 5 minutes from server time", fix: "Sign each request when sending it, with a clock in sync (NTP)" },
  rate_limited: { status: 429, message: "Per-minute limit exceeded", fix: "Wait Retry-After seconds, then retry the same request" },
  unavailable: {
    status: 503, message: "The platform is at capacity, or could not confirm the events in time",
    fix: "Wait Retry-After seconds, then retry the same request with the same idempotency_key: events already stored are answered duplicate"
  },
  internal_error: { status: 500, message: "Internal error", fix: "Retry with the same idempotency_key: a repeat gives no duplicate result" }
}

/** Where browsers and servers post events; its webhooks are under it (`/hooks/:token`). */
export const WEBSITE_EVENTS_PATH = "/api/v1/website-events"

/**
 * CORS echoes the request's Origin on every answer, the socket's 503 included (no credentials are ever allowed, so
 * this leaks nothing); an origin longer than any real one is not echoed.
 */
export const echoedOrigin = (origin: string | undefined) => corsHeaders(origin === undefined || origin.length > 300 ? undefined : origin)

/** The page explaining every code (src/website/errorsPage.ts); each error body links to its code's anchor there. */
export const DOCS = "/docs/website-events"

export const docsLink = (code: RequestErrorCode) => `${DOCS}#${code}`

export const statusOfCode = (code: RequestErrorCode) => REQUEST_ERRORS[code].status

export const PREFLIGHT_HEADERS = {
  "access-control-allow-methods": "POST, OPTIONS",
  "access-control-allow-headers": "Content-Type, X-SVC-Key",
  "access-control-max-age": "86400"
}

export const errorBody = (code: RequestErrorCode, detail?: string) => ({
  error: { code, message: REQUEST_ERRORS[code].message, ...(detail === undefined ? {} : { detail }), fix: REQUEST_ERRORS[code].fix, docs: docsLink(code) }
})

export const requestError = (code: RequestErrorCode, headers: Record<string, string>, detail?: string, retryAfter?: number) =>
  HttpServerResponse.jsonUnsafe(errorBody(code, detail), {
    status: REQUEST_ERRORS[code].status,
    headers: retryAfter === undefined ? headers : { ...headers, "retry-after": String(retryAfter) }
  })

export interface EventWarning {
  readonly code: string
  readonly message: string
}

export interface EventResult {
  readonly index: number
  readonly status: "accepted" | "duplicate" | "rejected"
  readonly code: string
  readonly message: string
  readonly event_id: string | null
  readonly contact: "matched" | "created" | "none"
  readonly warnings: ReadonlyArray<EventWarning>
  readonly issues?: ReadonlyArray<Issue>
  readonly mapping_warnings?: ReadonlyArray<MappingWarning>
}

export interface Result {
  readonly received: number
  readonly accepted: number
  readonly duplicate: number
  readonly rejected: number
  readonly results: ReadonlyArray<EventResult>
}

export const resultOf = (results: ReadonlyArray<EventResult>): Result => ({
  received: results.length,
  accepted: results.filter((r) => r.status === "accepted").length,
  duplicate: results.filter((r) => r.status === "duplicate").length,
  rejected: results.filter((r) => r.status === "rejected").length,
  results
})
