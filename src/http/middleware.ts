import { Context, Effect, Layer, Option, Redacted } from "effect"
import { HttpServerRequest, HttpServerResponse } from "effect/http"
import { type HttpApiEndpoint, HttpApiMiddleware } from "effect/http-api"
import { acceptedScopes, Authentication, CurrentPrincipal, type Principal, RequiredScope, ValidationErrors } from "../../schemas/api.ts"
import { STAFF_SESSION_COOKIE } from "../../schemas/staffApi.ts"
import { makeSessionEdge } from "../staff/sessionEdge.ts"
import { Forbidden, Unauthorized, ValidationFailed } from "../../schemas/errors.ts"
import { ApiKeys } from "../auth/ApiKeys.ts"
import { displayPrefix, hasScope } from "../auth/keys.ts"
import { noteCredential } from "./accessFacts.ts"
import { RateLimiter } from "../auth/RateLimiter.ts"
import { AppConfig } from "../../core/config/AppConfig.ts"
import { issueDetails, summarise } from "./issues.ts"
import { coreErrorResponse } from "./errorShape.ts"
import { Idempotency } from "./idempotency/Idempotency.ts"
import { Admission } from "../../streams/Admission.ts"
import { overloaded } from "./answers.ts"

export const ValidationErrorsLive = HttpApiMiddleware.layerSchemaErrorTransform(ValidationErrors, (error) => {
  const details = issueDetails(error.cause.issue)
  return Effect.fail(ValidationFailed.of(summarise(details), details))
})

export const rateLimitedResponse = (retryAfter: number, limit: number) =>
  coreErrorResponse(429, "RATE_LIMITED", `Rate limit exceeded; retry after ${retryAfter} s`, { retry_after_seconds: retryAfter },
    { "retry-after": String(retryAfter), "x-ratelimit-limit": String(limit), "x-ratelimit-remaining": "0" })

/** 403 naming the scope the endpoint needs, or every scope it accepts when any one of several will do. */
const scopeRefused = (accepted: ReadonlyArray<string>) =>
  accepted.length === 1
    ? Forbidden.of(`This key lacks the scope ${accepted[0]}`, { required_scope: accepted[0] })
    : Forbidden.of(`This key lacks a scope this endpoint accepts: ${accepted.join(" or ")}`, {
      required_scope: accepted.join(" or "),
      accepted_scopes: accepted
    })

/**
 * Bearer key → principal; then the endpoint's scope; then the key's rate limit (headers on every answer). Without a
 * bearer token, a staff session's cookie (src/staff/sessionEdge.ts): its role instead of scopes, rate-limited by its
 * staff id; the cookie is not even parsed when a bearer token is sent.
 */
export const AuthenticationLive = Layer.effect(Authentication, Effect.gen(function*() {
  const keys = yield* ApiKeys
  const limiter = yield* RateLimiter
  const config = yield* AppConfig
  const idempotency = yield* Idempotency
  const admission = yield* Admission
  const staff = yield* makeSessionEdge

  /** Past the credential and its permission: the rate limit, admission, the call itself, then its audit and masking. */
  const admitted = <E, R>(
    principal: Principal, endpoint: HttpApiEndpoint.Top,
    httpEffect: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>
  ) => Effect.gen(function*() {
    const limit = principal.rate_limit_per_minute ?? config.defaultRateLimitPerMinute
    const decision = yield* limiter.take(principal.key_id, limit)
    if (!decision.allowed) return rateLimitedResponse(decision.retryAfter, limit)
    // Overload is refused here, before the body is read or decoded: a shed request costs the ingress next to nothing.
    // Reads are let through (they go to PostgreSQL, not to the workers whose backlog the limit measures).
    const request = yield* HttpServerRequest.HttpServerRequest
    if (request.method !== "GET" && request.method !== "HEAD") {
      const refused = yield* admission.refusal(principal.tenant_id)
      if (refused !== undefined) return yield* overloaded(refused)
    }
    // Past the key, its scope and its rate limit: an Idempotency-Key request may be answered from what is stored.
    const response = yield* idempotency.guard(principal, endpoint, Effect.provideService(httpEffect, CurrentPrincipal, principal))
    return HttpServerResponse.setHeaders(yield* staff.afterCall(principal, endpoint, response), {
      "x-ratelimit-limit": String(limit),
      "x-ratelimit-remaining": String(decision.remaining),
      "x-ratelimit-reset": String(decision.resetAfter)
    })
  })

  return Authentication.of({
    bearer: (httpEffect, { credential, endpoint }) =>
      Effect.gen(function*() {
        const token = Redacted.value(credential)
        if (!token) {
          const request = yield* HttpServerRequest.HttpServerRequest
          const cookie = request.cookies[STAFF_SESSION_COOKIE]
          if (cookie) {
            const principal = yield* staff.principal(cookie, request, endpoint, null)
            yield* noteCredential(principal.tenant_id, principal.key_id)
            return yield* admitted(principal, endpoint, httpEffect)
          }
          // Spec, Authentication 9: the early loyalty API's X-API-Key + X-Tenant-Slug are answered with the way forward.
          if (request.headers["x-api-key"] !== undefined) {
            return yield* Unauthorized.of("X-API-Key and X-Tenant-Slug are no longer accepted: send Authorization: Bearer <API_KEY> (svckr_ key; the tenant comes from the key)")
          }
          return yield* Unauthorized.of("Missing API key: send Authorization: Bearer <API_KEY>")
        }
        const principal = yield* keys.authenticate(token)
        if (!principal) return yield* Unauthorized.of("Unknown or revoked API key")
        yield* noteCredential(principal.tenant_id, displayPrefix(token))
        const required = Option.getOrUndefined(Context.getOption(endpoint.annotations, RequiredScope))
        if (required !== undefined && !acceptedScopes(required).some((scope) => hasScope(principal.scopes, scope))) {
          return yield* scopeRefused(acceptedScopes(required))
        }
        return yield* admitted(principal, endpoint, httpEffect)
      })
  })
}))
