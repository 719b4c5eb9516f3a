import { Effect, Layer } from "effect"
import { HttpServerRequest, HttpServerResponse } from "effect/http"
import { HttpApiMiddleware } from "effect/http-api"
import { NewsletterValidationErrors } from "../../schemas/newsletterApi.ts"
import { issueDetails, summarise } from "../http/issues.ts"
import { AppConfig } from "../../core/config/AppConfig.ts"
import { looksPublishable } from "../../core/newsletter/credentials.ts"
import { normaliseOrigin } from "../../core/website/credentials.ts"
import { ApiKeys } from "../auth/ApiKeys.ts"
import { hasScope } from "../auth/keys.ts"
import { RateLimiter } from "../auth/RateLimiter.ts"
import { type WidgetSettings, NewsletterSettings } from "./NewsletterSettings.ts"
import { corsHeaders } from "../http/cors.ts"
import { coreErrorResponse } from "../http/errorShape.ts"

// Who calls the widget's endpoints (Authentication item 4): a publishable key from a browser page on an allowed
// origin (Origin, else Referer), or a core key with guests:write from a server (origin list and bot check skipped).
// Every answer is rendered here with its CORS headers, errors included, so a page can read why it was refused.

export interface WidgetCaller {
  readonly kind: "browser" | "server"
  readonly settings: WidgetSettings
  /** The page's origin (browser callers). */
  readonly origin: string | null
  readonly headers: Record<string, string>
}

export const PREFLIGHT = {
  "access-control-allow-methods": "GET, POST, OPTIONS",
  "access-control-allow-headers": "Authorization, Content-Type",
  "access-control-max-age": "86400"
}

/** The page's origin: the Origin header, else the origin of the Referer (a form post from an older browser). */
export const pageOrigin = (request: HttpServerRequest.HttpServerRequest): string | null => {
  const origin = request.headers["origin"]
  if (origin !== undefined && origin !== "null" && origin.length <= 300) return normaliseOrigin(origin) ?? null
  const referer = request.headers["referer"]
  if (referer === undefined || referer.length > 2_000) return null
  try {
    return normaliseOrigin(new URL(referer).origin) ?? null
  } catch {
    return null
  }
}

/** The caller, or the answer refusing it (401 unknown key, 403 scope / origin / disabled widget, 429 rate limit). */
export const widgetCaller = Effect.fn("Newsletter.widgetCaller")(function*(request: HttpServerRequest.HttpServerRequest) {
  const settingsStore = yield* NewsletterSettings
  const keys = yield* ApiKeys
  const limiter = yield* RateLimiter
  const config = yield* AppConfig
  const bearer = /^Bearer\s+(\S+)$/i.exec(request.headers["authorization"] ?? "")?.[1]
  const origin = pageOrigin(request)
  const refuse = coreErrorResponse
  if (bearer === undefined) return refuse(401, "UNAUTHORIZED", "Missing key: send Authorization: Bearer <svc_pub_… publishable key>")

  let caller: WidgetCaller
  let bucket: string
  let limit = config.defaultRateLimitPerMinute
  if (looksPublishable(bearer)) {
    const settings = yield* settingsStore.ofPublishableKey(bearer)
    if (settings === undefined) return refuse(401, "UNAUTHORIZED", "Unknown publishable key")
    if (origin === null || !settings.allowed_origins.includes(origin)) {
      return refuse(403, "ORIGIN_NOT_ALLOWED", "This page's origin is not allowed to use the newsletter widget", { origin: origin ?? null })
    }
    caller = { kind: "browser", settings, origin, headers: corsHeaders(origin) }
    bucket = `newsletter:${settings.scope.tenant_id}:${settings.scope.sandbox}`
  } else {
    const principal = yield* keys.authenticate(bearer)
    if (principal === undefined) return refuse(401, "UNAUTHORIZED", "Unknown or revoked key")
    if (!hasScope(principal.scopes, "guests:write")) {
      return refuse(403, "FORBIDDEN", "This key lacks the scope guests:write", { required_scope: "guests:write" })
    }
    const settings = yield* settingsStore.ofScope({ tenant_id: principal.tenant_id, sandbox: principal.sandbox })
    if (settings === undefined) return refuse(403, "NEWSLETTER_DISABLED", "Newsletter signup is not enabled")
    caller = { kind: "server", settings, origin: null, headers: {} }
    bucket = principal.key_id
    limit = principal.rate_limit_per_minute ?? limit
  }
  if (!caller.settings.enabled) return refuse(403, "NEWSLETTER_DISABLED", "Newsletter signup is not enabled", {}, caller.headers)
  const decision = yield* limiter.take(bucket, limit)
  if (!decision.allowed) {
    return refuse(429, "RATE_LIMITED", `Rate limit exceeded; retry after ${decision.retryAfter} s`, { retry_after_seconds: decision.retryAfter },
      { ...caller.headers, "retry-after": String(decision.retryAfter) })
  }
  return caller
})

/** A CORS preflight: an origin some enabled widget allows gets the headers (the request itself is judged with its key). */
export const preflight = Effect.fn("Newsletter.preflight")(function*(request: HttpServerRequest.HttpServerRequest) {
  const origin = pageOrigin(request)
  const listed = origin === null ? false : yield* (yield* NewsletterSettings).originListed(origin)
  return HttpServerResponse.empty({ status: 204, headers: listed ? { ...corsHeaders(origin), ...PREFLIGHT } : {} })
})

/**
 * A malformed widget request answers the core 400 naming each field, with the CORS headers when an enabled widget
 * allows the page's origin: a page can show why it was refused instead of a CORS failure.
 */
export const NewsletterValidationErrorsLive = Layer.unwrap(Effect.gen(function*() {
  const settings = yield* NewsletterSettings
  return HttpApiMiddleware.layerSchemaErrorTransform(NewsletterValidationErrors, (error) => Effect.gen(function*() {
    const details = issueDetails(error.cause.issue)
    const request = yield* HttpServerRequest.HttpServerRequest
    const origin = pageOrigin(request)
    const listed = origin === null ? false : yield* settings.originListed(origin)
    return coreErrorResponse(400, "VALIDATION_ERROR", summarise(details), details, listed ? corsHeaders(origin) : {})
  }))
}))
