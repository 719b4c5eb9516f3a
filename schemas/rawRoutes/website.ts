import { header, json, jsonContent, param } from "./document.ts"
import type { Schema } from "effect"
import { WebsiteEventsError, WebsiteEventsRequest, WebsiteEventsResult, WebsiteHookReadiness, WebsiteHookRequest } from "../websiteEvents.ts"

// Website-event ingestion (src/website/routes.ts): a beacon's text/plain body, a signature over the raw bytes, the
// family's own error shape and CORS on every answer.

const CORS_HEADERS = {
  "Access-Control-Allow-Origin": header("the request's Origin, on every answer (errors too) to a browser key's allowed origin"),
  "Access-Control-Expose-Headers": header("Retry-After and the X-RateLimit-* headers, so a page can read them")
}
const RATE_HEADERS = {
  "X-RateLimit-Limit": header("requests a minute the source allows", "integer"),
  "X-RateLimit-Remaining": header("requests left in this minute", "integer"),
  "X-RateLimit-Reset": header("seconds until the minute ends", "integer")
}

const websiteError = (description: string, extraHeaders: Record<string, unknown> = {}) =>
  ({ description, headers: { ...CORS_HEADERS, ...extraHeaders }, content: jsonContent(WebsiteEventsError) })

/** Answers of both ingestion routes (one event or a batch, through the same contract). */
const ingestionAnswers = {
  "202": { description: "Judged: one result per event, in order", headers: { ...CORS_HEADERS, ...RATE_HEADERS }, content: jsonContent(WebsiteEventsResult) },
  "400": websiteError("invalid_json: the body is not JSON"),
  "401": websiteError("unauthorized, or (a signing source's webhook) signature_missing / signature_invalid / signature_expired"),
  "403": websiteError("source_disabled, feature_disabled, or origin_not_allowed (a browser key from an origin not allowed)"),
  "413": websiteError("body_too_large (64 KB; 256 KB for a webhook) or batch_too_large (over 50 events)"),
  "422": {
    description: "invalid_body or batch_empty (the error shape), or the result of a single event that was rejected",
    headers: CORS_HEADERS,
    content: { "application/json": { schema: { anyOf: [json(WebsiteEventsError), json(WebsiteEventsResult)] } } }
  },
  "429": websiteError("rate_limited: the source's or the visitor's minute is used up", { "Retry-After": header("seconds to wait", "integer") }),
  "500": websiteError("internal_error: retry the same request (events already applied answer duplicate)", { "Retry-After": header("seconds to wait", "integer") }),
  "503": websiteError("unavailable: shed for overload, or not confirmed in time; retry the same request after Retry-After (events already applied answer duplicate)", {
    "Retry-After": header("seconds to wait", "integer")
  })
}

const body = (schema: Schema.Top, types: ReadonlyArray<string>) =>
  ({ required: true, content: Object.fromEntries(types.map((t) => [t, { schema: json(schema) }])) })

const TOKEN = param("token", "path", "the source's webhook token (svc_wh_…)")
const TEST = { name: "test", in: "query", required: false, description: "1: judged and answered, never stored", schema: { type: "string", enum: ["1"] } }

export const WebsiteEventPaths = {
  "/docs/website-events": {
    get: {
      tags: ["website events"],
      operationId: "getWebsiteEventErrorCodes",
      summary: "The error codes of website events, one section per code (its anchor), with its status, meaning and fix: the `docs` link of every error body",
      responses: {
        "200": {
          description: "The page (HTML, no script), cached five minutes",
          headers: { "Cache-Control": header("public, max-age=300") },
          content: { "text/html": { schema: { type: "string" } } }
        }
      }
    }
  },
  "/api/v1/website-events": {
    post: {
      tags: ["website events"],
      operationId: "sendWebsiteEvents",
      summary: "Send website events with the source's server key (Authorization: Bearer svc_sk_…) or browser key (X-SVC-Key or ?key=svc_pk_…, only from an allowed origin)",
      parameters: [
        param("X-SVC-Key", "header", "a browser key (svc_pk_…)"),
        param("key", "query", "a browser key (svc_pk_…), for a beacon that cannot set headers")
      ],
      requestBody: body(WebsiteEventsRequest, ["application/json", "text/plain"]),
      responses: ingestionAnswers
    },
    options: {
      tags: ["website events"],
      operationId: "preflightWebsiteEvents",
      summary: "CORS preflight: 204, with the CORS headers only for an origin some source allows",
      responses: { "204": { description: "No content", headers: { ...CORS_HEADERS, "Access-Control-Allow-Methods": header("POST, OPTIONS"), "Access-Control-Allow-Headers": header("Content-Type, X-SVC-Key") } } }
    }
  },
  "/api/v1/website-events/hooks/{token}": {
    get: {
      tags: ["website events"],
      operationId: "checkWebsiteHook",
      summary: "Readiness of a source webhook: 200 when a POST would be accepted, else the 401 or 403 a POST would get",
      parameters: [TOKEN, TEST],
      responses: {
        "200": { description: "Ready", content: jsonContent(WebsiteHookReadiness) },
        "401": websiteError("unauthorized: an unknown, revoked or malformed token"),
        "403": websiteError("source_disabled or feature_disabled")
      }
    },
    post: {
      tags: ["website events"],
      operationId: "receiveWebsiteHook",
      summary: "A partner's webhook: its JSON mapped onto the contract (X-SVC-Signature: t=…,v1=… over '<t>.<raw body>' when the source signs)",
      parameters: [
        TOKEN, TEST,
        param("X-SVC-Signature", "header", "t=<unix seconds>,v1=<hex HMAC-SHA256>; several v1 while a secret rotates")
      ],
      requestBody: body(WebsiteHookRequest, ["application/json", "text/plain"]),
      responses: ingestionAnswers
    }
  }
}

