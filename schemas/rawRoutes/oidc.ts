import { SafeString } from "../text.ts"
import { CoreErrorBody } from "../errors.ts"
import { header, json, jsonContent, param } from "./document.ts"

// Loyalty SSO paths that are not HttpApi routes: oidc-provider's own endpoints (its discovery document is their
// contract; listed here so /openapi.json names every path the platform answers) and the passwordless sign-in pages,
// plain HTML form posts a script can drive. Added to the document with the other raw routes (schemas/rawRoutes.ts).

const html = { "text/html": { schema: { type: "string" } } }
/** oidc-provider's redirects carry Koa's "Redirecting to …" body, HTML or text by the Accept header. */
const redirectText = { "text/html": { schema: { type: "string" } }, "text/plain": { schema: { type: "string" } } }
const strings = { type: "array", items: { type: "string" } }
const str = { type: "string" }
/** A JSON object with these properties (those listed in `required` always present); others may appear, as OpenID Connect allows. */
const openObject = (properties: Record<string, unknown>, required: ReadonlyArray<string>) =>
  ({ "application/json": { schema: { type: "object", required, properties } } })
/** OpenID Connect Discovery 1.0 metadata, as oidc-provider publishes it for this configuration. */
const discovery = openObject({
  issuer: str, authorization_endpoint: str, token_endpoint: str, userinfo_endpoint: str, jwks_uri: str, end_session_endpoint: str,
  revocation_endpoint: str, scopes_supported: strings, claims_supported: strings, response_types_supported: strings,
  grant_types_supported: strings, subject_types_supported: strings, id_token_signing_alg_values_supported: strings,
  token_endpoint_auth_methods_supported: strings, code_challenge_methods_supported: strings
}, ["issuer", "authorization_endpoint", "token_endpoint", "jwks_uri", "response_types_supported", "subject_types_supported", "id_token_signing_alg_values_supported"])
/** The code exchange's answer (RFC 6749 5.1, OpenID Connect Core 3.1.3.3): an opaque access token and an id_token. */
const tokenAnswer = openObject({
  access_token: str, token_type: { const: "Bearer" }, expires_in: { type: "integer" }, id_token: str, scope: str
}, ["access_token", "token_type", "expires_in", "id_token", "scope"])
/** UserInfo claims of the scopes granted (openid, email, profile, loyalty). */
const userInfo = openObject({
  sub: str, email: str, email_verified: { type: "boolean" }, given_name: str, family_name: str, member_id: str, tenant_id: str
}, ["sub"])
/** OAuth 2.0 error answers (RFC 6749 5.2), as oidc-provider writes them. */
const oauthError = { "application/json": { schema: { type: "object", required: ["error"], properties: { error: { type: "string" }, error_description: { type: "string" } } } } }
/** A body over 64 KiB is refused before the provider or the page reads it, in the core error shape. */
const tooLarge = {
  "413": {
    description: "body over 64 KiB",
    content: jsonContent(CoreErrorBody)
  }
}
/** The database away: 503 with Retry-After, OAuth's temporarily_unavailable on the provider's routes, a page on ours. */
const away = (content: Record<string, unknown>) => ({
  "503": { description: "temporarily unavailable (the database is away): retry after Retry-After", headers: { "Retry-After": header("seconds to wait", "integer") }, content }
})
const uid = param("uid", "path", "the interaction id (the path the authorisation redirected to)")
const form = (field: string, description: string) => ({
  required: true,
  content: { "application/x-www-form-urlencoded": { schema: { type: "object", required: [field], properties: { [field]: { ...json(SafeString), description } } } } }
})
const provider = (operationId: string, summary: string, responses: Record<string, unknown>) =>
  ({ tags: ["oidc"], operationId, summary, responses: { ...responses, ...away(oauthError) } })

export const OidcPaths: Record<string, unknown> = {
  "/api/oidc/.well-known/openid-configuration": { get: provider("getOidcDiscovery", "OpenID Connect discovery: issuer, endpoints, jwks_uri", { "200": { description: "Discovery document", content: discovery } }) },
  "/api/oidc/jwks": { get: provider("getOidcJwks", "RS256 public keys (current, next, recently retired)", { "200": { description: "JWK Set", content: { "application/jwk-set+json": { schema: { type: "object" } } } } }) },
  "/api/oidc/auth": {
    get: provider("oidcAuthorize", "Authorization Code with PKCE S256 (response_type=code, code_challenge, code_challenge_method=S256, client_id, redirect_uri, scope, state)",
      { "303": { description: "to the sign-in page, or back to redirect_uri with code or error", content: redirectText }, "400": { description: "unknown client or unregistered redirect_uri (never redirected to)", content: oauthError } })
  },
  "/api/oidc/token": {
    post: provider("oidcToken", "Code exchange (grant_type=authorization_code, code, redirect_uri, code_verifier), client_secret_basic",
      { "200": { description: "access_token (opaque, 15 min), id_token (RS256)", content: tokenAnswer }, "400": { description: "invalid_grant, invalid_request", content: oauthError }, "401": { description: "invalid_client", content: oauthError }, ...tooLarge })
  },
  "/api/oidc/me": { get: provider("oidcUserInfo", "UserInfo (Bearer access token)", { "200": { description: "claims", content: userInfo }, "401": { description: "invalid_token", content: oauthError } }) },
  "/api/oidc/token/revocation": { post: provider("oidcRevokeToken", "Token revocation (RFC 7009), client_secret_basic", { "200": { description: "revoked (or unknown)" }, "400": { description: "invalid_request", content: oauthError }, "401": { description: "invalid_client", content: oauthError }, ...tooLarge }) },
  "/api/oidc/session/end": {
    get: provider("oidcEndSession", "RP-initiated sign-out (id_token_hint, post_logout_redirect_uri, state): a confirmation form", { "200": { description: "form posting to /api/oidc/session/end/confirm", content: html }, "400": { description: "invalid id_token_hint or post_logout_redirect_uri", content: oauthError } })
  },
  "/api/oidc/session/end/confirm": {
    post: provider("oidcConfirmEndSession", "Sign-out confirmed (xsrf, logout=yes): every SSO access token of the member is revoked", { "303": { description: "to post_logout_redirect_uri", content: redirectText }, "400": { description: "no sign-out in progress (xsrf)", content: oauthError }, ...tooLarge })
  },
  "/api/oidc/interaction/{uid}": {
    get: { tags: ["oidc"], operationId: "getSignInPage", summary: "Sign-in page: the email form", parameters: [uid], responses: { "200": { description: "email form", content: html }, "400": { description: "expired sign-in", content: html }, ...away(html) } }
  },
  "/api/oidc/interaction/{uid}/login": {
    post: {
      tags: ["oidc"], operationId: "sendSignInCode", summary: "Email a 6-digit code (same answer whether or not the email is a member's)", parameters: [uid], requestBody: form("email", "the member's email"),
      responses: { "200": { description: "code form", content: html }, "400": { description: "invalid email or expired sign-in", content: html }, "429": { description: "rate limited (per IP, per email)", content: html }, "503": { description: "email could not be sent, or the database is away (Retry-After)", headers: { "Retry-After": header("seconds to wait", "integer") }, content: html }, ...tooLarge }
    }
  },
  "/api/oidc/interaction/{uid}/abort": {
    post: {
      tags: ["oidc"], operationId: "abortSignIn", summary: "Cancel the sign-in: back to the client's redirect_uri with error=access_denied", parameters: [uid],
      responses: { "303": { description: "back to the authorisation (then to redirect_uri with error=access_denied and state)" }, "400": { description: "expired sign-in", content: html }, ...away(html), ...tooLarge }
    }
  },
  "/api/oidc/interaction/{uid}/otp": {
    post: {
      tags: ["oidc"], operationId: "completeSignIn", summary: "The code: completes the sign-in (10 minutes, 5 tries)", parameters: [uid], requestBody: form("code", "the 6 digits from the email"),
      responses: { "303": { description: "back to the authorisation (then to redirect_uri with code)" }, "400": { description: "wrong or expired code", content: html }, ...away(html), ...tooLarge }
    }
  }
}
