import { Effect, Layer, Redacted } from "effect"
import { HttpServerResponse } from "effect/http"
import { CtiAuthentication, CurrentIntegration } from "../../schemas/security.ts"
import { Unauthorized } from "../../schemas/errors.ts"
import { RateLimiter } from "../auth/RateLimiter.ts"
import { AppConfig } from "../../core/config/AppConfig.ts"
import { Integrations } from "./Integrations.ts"
import { rateLimitedResponse } from "../http/middleware.ts"
import { noteCredential } from "../http/accessFacts.ts"

/** The CTI token → its integration; a provider in the path must be the token's; then the tenant's telephony limit. */
export const CtiAuthenticationLive = Layer.effect(CtiAuthentication, Effect.gen(function*() {
  const integrations = yield* Integrations
  const limiter = yield* RateLimiter
  const config = yield* AppConfig
  return CtiAuthentication.of({
    bearer: (httpEffect, { credential }) =>
      Effect.gen(function*() {
        const token = Redacted.value(credential)
        if (!token) return yield* Unauthorized.of("Missing token: send Authorization: Bearer <WEBHOOK_TOKEN>")
        const integration = yield* integrations.authenticate(token)
        if (!integration) return yield* Unauthorized.of("Unknown or revoked telephony token")
        yield* noteCredential(integration.tenant_id, null)
        const limit = config.telephonyRateLimitPerMinute
        const decision = yield* limiter.take(`telephony:${integration.tenant_id}`, limit)
        if (!decision.allowed) return rateLimitedResponse(decision.retryAfter, limit)
        const response = yield* Effect.provideService(httpEffect, CurrentIntegration, integration)
        return HttpServerResponse.setHeaders(response, {
          "x-ratelimit-limit": String(limit),
          "x-ratelimit-remaining": String(decision.remaining)
        })
      })
  })
}))

