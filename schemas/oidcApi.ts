import { Context, Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, HttpApiMiddleware, HttpApiSchema, HttpApiSecurity, OpenApi } from "effect/http-api"
import { RateLimited, Unauthorized, ValidationFailed } from "./errors.ts"
import { PageQuery } from "./list.ts"
import { ClubCode, ClubMemberView, LedgerPage, MemberBalanceView, ok, TransferToken } from "./loyaltyAnswers.ts"
import { Authentication, Bearer, RequiredScope, ValidationErrors } from "./security.ts"
import { SafeString } from "./text.ts"

// Loyalty SSO's HTTP contract besides oidc-provider's own endpoints (those are in the discovery document, and in
// /openapi.json through the transform, schemas/rawRoutes/oidc.ts): relying-party clients, the signed-in member's reads
// and the club transfer.

/** The member behind an SSO access token: the tenant comes from the client the token was issued to. */
export interface Member {
  readonly member_id: string
  readonly tenant_id: string
  readonly sandbox: boolean
  readonly client_id: string
  readonly grant_id: string
}
export class CurrentMember extends Context.Service<CurrentMember, Member>()("app/oidc/CurrentMember") {}

/** `Authorization: Bearer <access_token>` from `/api/oidc/token` (scope `loyalty`), limited per member. */
export class MemberAuthentication extends HttpApiMiddleware.Service<MemberAuthentication, { provides: CurrentMember }>()(
  "app/oidc/MemberAuthentication",
  { error: [Unauthorized, RateLimited], security: { bearer: Bearer } }
) {}

/** A club client (an OIDC client of the tenant): `X-Client-Id` plus `X-Client-Secret`. */
export interface ClubClient {
  readonly client_id: string
  readonly tenant_id: string
  readonly sandbox: boolean
}
export class CurrentClubClient extends Context.Service<CurrentClubClient, ClubClient>()("app/oidc/CurrentClubClient") {}

export class ClubClientAuthentication extends HttpApiMiddleware.Service<ClubClientAuthentication, { provides: CurrentClubClient }>()(
  "app/oidc/ClubClientAuthentication",
  { error: [Unauthorized, RateLimited], security: { clientSecret: HttpApiSecurity.apiKey({ key: "X-Client-Secret", in: "header" }) } }
) {}

const Uri = SafeString.annotate({ description: "an absolute http(s) URL, matched exactly" })

export const OidcClientRequest = Schema.Struct({
  name: SafeString.annotate({ description: "shown on the sign-in page" }),
  redirect_uris: Schema.Array(Uri).annotate({ description: "1 to 10 redirect URIs" }),
  post_logout_redirect_uris: Schema.optionalKey(Schema.Array(Uri).annotate({ description: "0 to 10 URIs a sign-out may return to" }))
})

export const OidcClientCreated = Schema.Struct({
  success: Schema.Literal(true),
  data: Schema.Struct({
    client_id: Schema.String,
    client_secret: Schema.String.annotate({ description: "shown once; stored encrypted" }),
    name: Schema.String,
    redirect_uris: Schema.Array(Schema.String),
    post_logout_redirect_uris: Schema.Array(Schema.String)
  })
}).pipe(HttpApiSchema.status(201))

export const OidcClientsGroup = HttpApiGroup.make("oidcClients")
  .add(
    HttpApiEndpoint.post("create", "/api/v1/oidc/clients", { payload: OidcClientRequest, success: OidcClientCreated, error: ValidationFailed })
      .annotate(RequiredScope, "*")
      .annotate(OpenApi.Summary, "Register a relying party (hotel site or app, also a club client): client_secret_basic, shown once")
  )
  .middleware(ValidationErrors)
  .middleware(Authentication)

export const LoyaltyMeGroup = HttpApiGroup.make("loyaltyMe")
  .add(HttpApiEndpoint.get("balance", "/api/loyalty/me/balance", { success: ok(MemberBalanceView) })
    .annotate(OpenApi.Summary, "The signed-in member's tier and points (SSO access token with scope loyalty)"))
  .add(
    HttpApiEndpoint.get("transactions", "/api/loyalty/me/transactions", {
      query: PageQuery,
      success: ok(LedgerPage),
      error: ValidationFailed
    }).annotate(OpenApi.Summary, "The signed-in member's points history, newest first; limit 1-100 (25), cursor = next_cursor")
  )
  .add(
    HttpApiEndpoint.post("clubCode", "/api/loyalty/me/club-code", { success: ok(ClubCode).pipe(HttpApiSchema.status(201)) })
      .annotate(OpenApi.Summary, "A one-time code (2 minutes) the member hands to a partner club site")
  )
  .middleware(ValidationErrors)
  .middleware(MemberAuthentication)

export const LoyaltyClubGroup = HttpApiGroup.make("loyaltyClub")
  .add(
    HttpApiEndpoint.post("exchange", "/api/loyalty/club/exchange", {
      payload: Schema.Struct({ code: SafeString.annotate({ description: "the member's one-time club code" }) }),
      success: ok(TransferToken),
      error: ValidationFailed
    }).annotate(OpenApi.Summary, "Exchange a member's one-time code, once, for a transfer token (15 minutes, bound to this client)")
  )
  .add(
    HttpApiEndpoint.get("me", "/api/loyalty/club/me", { success: ok(ClubMemberView) })
      .annotate(OpenApi.Summary, "The member of a transfer token (Authorization: Bearer clubt_…) with the client credentials")
  )
  .middleware(ValidationErrors)
  .middleware(ClubClientAuthentication)
