import { Config, Effect, Layer, Redacted } from "effect"
import { HttpServerRequest } from "effect/http"
import type { Provider } from "oidc-provider"
import { Database, type Sql } from "../../core/db/Database.ts"
import { isDatabaseAway } from "../../core/db/DatabaseFailure.ts"
import { WebhookConfig } from "../../core/webhook/WebhookConfig.ts"
import { Unauthorized } from "../../schemas/errors.ts"
import { ClubClientAuthentication, CurrentClubClient, CurrentMember, type Member, MemberAuthentication } from "../../schemas/oidcApi.ts"
import { RateLimiter } from "../auth/RateLimiter.ts"
import { rateLimitedResponse } from "../http/middleware.ts"
import { OidcProvider } from "./OidcProvider.ts"
import { decryptClientSecret, digest, sameDigest } from "./secrets.ts"
import { coreErrorResponse } from "../http/errorShape.ts"

/**
 * The member of an SSO access token, with the checks of the provider's own userinfo endpoint: the token is known,
 * unexpired and its session alive (`find`), its grant still exists for the same client and account, and it carries
 * scope `loyalty`. The tenant is the one of the client the token was issued to.
 */
export const memberOfToken = async (provider: Provider, sql: Sql, token: string): Promise<Member | undefined> => {
  const at = await provider.AccessToken.find(token).catch(noneUnlessDatabaseAway)
  if (at === undefined || at.isExpired || !at.scopes.has("loyalty") || at.grantId === undefined || at.accountId === undefined || at.clientId === undefined) return undefined
  const grant = await provider.Grant.find(at.grantId).catch(noneUnlessDatabaseAway)
  if (grant === undefined || grant.clientId !== at.clientId || grant.accountId !== at.accountId) return undefined
  const [c] = await sql`SELECT tenant_id, sandbox FROM oidc_clients WHERE client_id = ${at.clientId}`
  if (c === undefined) return undefined
  return { member_id: at.accountId, tenant_id: c.tenant_id as string, sandbox: c.sandbox as boolean, client_id: at.clientId, grant_id: at.grantId }
}

/** A token the provider cannot read is no member's; the database away is not the token's fault (503, not 401). */
const noneUnlessDatabaseAway = (e: unknown): undefined => {
  if (isDatabaseAway(e)) throw e
  return undefined
}

/**
 * Requests per minute per member on the member routes, whatever client or token they come through;
 * GEP_SSO_MEMBER_REQUESTS_PER_MINUTE changes it (the bench, reading with few members).
 */
const MemberPerMinute = Config.Int("GEP_SSO_MEMBER_REQUESTS_PER_MINUTE").pipe(Config.withDefault(120))

export const MemberAuthenticationLive = Layer.effect(MemberAuthentication, Effect.gen(function*() {
  const oidc = yield* OidcProvider
  const db = yield* Database
  const limiter = yield* RateLimiter
  const perMinute = yield* MemberPerMinute.pipe(Effect.orDie)
  const { sql } = db
  return MemberAuthentication.of({
    bearer: (httpEffect, { credential }) =>
      Effect.gen(function*() {
        const token = Redacted.value(credential)
        if (!token) return yield* Unauthorized.of("Missing access token: send Authorization: Bearer <access_token> issued by /api/oidc/token")
        const provider = yield* oidc.current
        const member = yield* db.query(() => memberOfToken(provider, sql, token))
        // RFC 6750: a relying party learns from the challenge that the token, not the request, is at fault.
        if (member === undefined) {
          return coreErrorResponse(401, "UNAUTHORIZED", "The access token is unknown, expired or revoked (signed out), or lacks scope loyalty", {},
            { "www-authenticate": 'Bearer error="invalid_token"' })
        }
        const decision = yield* limiter.take(`sso-member:${member.tenant_id}:${member.member_id}`, perMinute)
        if (!decision.allowed) return rateLimitedResponse(decision.retryAfter, perMinute)
        return yield* Effect.provideService(httpEffect, CurrentMember, member)
      })
  })
}))

/** Requests per minute per club client. */
const CLUB_CLIENT_PER_MINUTE = 600

/** `X-Client-Id` + `X-Client-Secret` of an OIDC client, the secret compared in constant time. */
export const ClubClientAuthenticationLive = Layer.effect(ClubClientAuthentication, Effect.gen(function*() {
  const db = yield* Database
  const key = Redacted.value((yield* WebhookConfig).encryptionKey)
  const limiter = yield* RateLimiter
  return ClubClientAuthentication.of({
    clientSecret: (httpEffect, { credential }) =>
      Effect.gen(function*() {
        const request = yield* HttpServerRequest.HttpServerRequest
        const clientId = request.headers["x-client-id"] ?? ""
        const secret = Redacted.value(credential)
        if (!clientId || !secret) return yield* Unauthorized.of("Missing client credentials: send X-Client-Id and X-Client-Secret")
        const [row] = yield* db.query((sql) => sql`SELECT client_id, tenant_id, sandbox, secret_encrypted FROM oidc_clients WHERE client_id = ${clientId}`)
        const stored = row === undefined ? undefined : decryptClientSecret(key, row.client_id as string, row.secret_encrypted as Uint8Array)
        if (row === undefined || !sameDigest(digest(stored!), digest(secret))) return yield* Unauthorized.of("Unknown client or wrong client secret")
        const decision = yield* limiter.take(`club:${clientId}`, CLUB_CLIENT_PER_MINUTE)
        if (!decision.allowed) return rateLimitedResponse(decision.retryAfter, CLUB_CLIENT_PER_MINUTE)
        return yield* Effect.provideService(httpEffect, CurrentClubClient, {
          client_id: row.client_id as string, tenant_id: row.tenant_id as string, sandbox: row.sandbox as boolean
        })
      })
  })
}))
