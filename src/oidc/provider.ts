import { Provider, type Configuration, type KoaContextWithOIDC } from "oidc-provider"
import type { Sql } from "../../core/db/Database.ts"
import { isDatabaseAway } from "../../core/db/DatabaseFailure.ts"
import { RETRY_AFTER_S } from "../http/answers.ts"
import { clientAdapter, modelAdapter, revokeAccountTokens } from "./adapter.ts"
import { cookieKeys } from "./secrets.ts"
import { logoutPage, signedOutPage } from "./pages.ts"

export const OIDC_PREFIX = "/api/oidc"
export const interactionPath = (uid: string) => `${OIDC_PREFIX}/interaction/${uid}`

/** Scopes and their claims (the spec shows none; `loyalty` is what the member reads need). */
const CLAIMS = {
  openid: ["sub"],
  email: ["email", "email_verified"],
  profile: ["given_name", "family_name"],
  loyalty: ["member_id", "tenant_id"]
}

export interface ProviderInput {
  readonly issuer: string
  readonly sql: Sql
  readonly key: Buffer
  readonly jwks: ReadonlyArray<Record<string, unknown>>
}

/** The member of an account id, if it belongs to the tenant of the asking client. */
const findMember = async (sql: Sql, memberId: string, tenantId: string | undefined) => {
  if (!/^[0-9a-f-]{36}$/i.test(memberId)) return undefined
  const [m] = await sql`SELECT member_id, tenant_id, email, first_name, last_name FROM loyalty_members
    WHERE member_id = ${memberId} AND kind = 'member' AND status = 'active'`
  return m === undefined || (tenantId !== undefined && m.tenant_id !== tenantId) ? undefined : m
}

const tenantOf = (ctx: KoaContextWithOIDC) => (ctx.oidc?.client as unknown as { tenant_id?: string } | undefined)?.tenant_id

/**
 * oidc-provider configured for the spec: Authorization Code with PKCE (S256 is all v9 accepts), client_secret_basic
 * only, RS256 id_tokens, opaque access tokens that die with the session, no refresh tokens, no consent screen (the
 * hotel sites are first-party), development login pages off, and a sign-out that revokes every token of the member.
 */
export const buildProvider = (input: ProviderInput): Provider => {
  const { sql, key } = input
  const configuration: Configuration = {
    adapter: (name: string) => name === "Client" ? clientAdapter(sql, key) : modelAdapter(sql, name),
    clients: [],
    extraClientMetadata: { properties: ["tenant_id"] },
    findAccount: async (ctx, sub) => {
      const m = await findMember(sql, sub, tenantOf(ctx))
      if (m === undefined) return undefined
      return {
        accountId: sub,
        claims: async () => ({
          sub, email: m.email as string, email_verified: true, given_name: m.first_name ?? undefined, family_name: m.last_name ?? undefined,
          member_id: sub, tenant_id: m.tenant_id as string
        })
      }
    },
    clientAuthMethods: ["client_secret_basic"],
    clientDefaults: { grant_types: ["authorization_code"], response_types: ["code"], token_endpoint_auth_method: "client_secret_basic", id_token_signed_response_alg: "RS256" },
    responseTypes: ["code"],
    pkce: { required: () => true },
    enabledJWA: { idTokenSigningAlgValues: ["RS256"] },
    jwks: { keys: input.jwks as never },
    cookies: { keys: cookieKeys(key), long: { httpOnly: true, sameSite: "lax" }, short: { httpOnly: true, sameSite: "lax" } },
    claims: CLAIMS,
    scopes: ["openid", "email", "profile", "loyalty"],
    features: {
      devInteractions: { enabled: false },
      // On by default in oidc-provider 9, and advertised by discovery, but not what the platform offers: the member
      // routes take `Bearer` tokens only (no DPoP binding) and authorisation starts at /auth (no pushed requests).
      dPoP: { enabled: false },
      pushedAuthorizationRequests: { enabled: false },
      revocation: { enabled: true },
      userinfo: { enabled: true },
      rpInitiatedLogout: { enabled: true, logoutSource: logoutPage, postLogoutSuccessSource: signedOutPage }
    },
    interactions: { url: (_ctx, interaction) => interactionPath(interaction.uid) },
    // No consent screen: a first-party hotel site gets the scopes it asks for (saved, as the docs require).
    loadExistingGrant: async (ctx) => {
      const existing = ctx.oidc.result?.consent?.grantId ?? ctx.oidc.session!.grantIdFor(ctx.oidc.client!.clientId)
      if (existing) {
        const found = await ctx.oidc.provider.Grant.find(existing)
        if (found) return found
      }
      const grant = new ctx.oidc.provider.Grant({ clientId: ctx.oidc.client!.clientId, accountId: ctx.oidc.session!.accountId! })
      grant.addOIDCScope("openid email profile loyalty")
      await grant.save()
      return grant
    },
    // Every token is bound to the session (logout trap 1) and there are no refresh tokens (nothing outlives sign-out):
    // no client may hold the refresh_token grant (clientDefaults, registration through the API) and the default
    // issueRefreshToken issues none without it. Overriding issueRefreshToken would make oidc-provider add the
    // refresh_token grant to discovery's grant_types_supported.
    expiresWithSession: async () => true,
    ttl: { AccessToken: 900, IdToken: 3600, AuthorizationCode: 60, Interaction: 1800, Session: 14 * 86400, Grant: 14 * 86400 },
    renderError: async (ctx, out) => {
      ctx.type = "application/json"
      ctx.body = out
    }
  }
  const provider = new Provider(input.issuer, configuration)
  // Sign-out (logout trap 3): the session's grants are revoked by the provider; every other token of the member too,
  // before the answer leaves, so the next use of any of them is refused.
  provider.on("end_session.success", (ctx: KoaContextWithOIDC) => {
    ctx.state.signedOutAccount = ctx.oidc.session?.accountId
  })
  // The database away (the adapters' statements fail on the connection) is the provider's 500 `server_error`; it is
  // answered as every other route answers it: 503 with Retry-After, OAuth's `temporarily_unavailable`.
  provider.on("server_error", (ctx: KoaContextWithOIDC, err: unknown) => {
    if (isDatabaseAway(err)) ctx.state.databaseAway = true
  })
  provider.use(async (ctx, next) => {
    await next()
    if (ctx.state.databaseAway === true && ctx.status === 500) {
      ctx.status = 503
      ctx.set("retry-after", String(RETRY_AFTER_S))
      ctx.type = "application/json"
      ctx.body = { error: "temporarily_unavailable", error_description: "Temporarily unavailable; retry after Retry-After seconds" }
      return
    }
    const account = ctx.state.signedOutAccount as string | undefined
    if (account) await revokeAccountTokens(sql, account)
  })
  return provider
}
