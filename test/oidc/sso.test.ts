import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import * as client from "openid-client"
import { rotateSigningKeys } from "../../src/oidc/keys.ts"
import { configureChannels, type MailingPlatform, startMailingPlatform, useEncryptionKey } from "../support/messaging.ts"
import { createTenant, testSql, type RunningPlatform, type TestTenant } from "../support/platform.ts"
import type { SmtpSink } from "../support/smtpSink.ts"
import { absolute, browser, discover, enrolMember, formOf, newClient, pkce, signIn, startInteraction } from "./support.ts"

const key = useEncryptionKey()
// Every sign-in of the run comes from 127.0.0.1 and test files share the rate counters: the per-IP limit would bind across files.
process.env.GEP_SSO_CODES_PER_IP_PER_MINUTE = "100000"
const sql = testSql()
const REDIRECT = "http://127.0.0.1/cb"
const LOGGED_OUT = "http://127.0.0.1/bye"
let mailing: MailingPlatform
let sink: SmtpSink
let platform: RunningPlatform
let issuer: string
let tenantA: TestTenant
let tenantB: TestTenant
let rpA: { client_id: string; client_secret: string }
let rpB: { client_id: string; client_secret: string }
let n = 0
const email = () => `member${Date.now().toString(36)}${n++}@gmail.com`

beforeAll(async () => {
  mailing = await startMailingPlatform(sql, key, "sso")
  ;({ sink, platform, tenant: tenantA } = mailing)
  issuer = `${platform.baseUrl}/api/oidc`
  tenantB = await createTenant("ssob")
  await configureChannels(sql, key, tenantB, { email: { from_address: "loyalty@hotelexample.com", from_name: "Hotel Example" } })
  rpA = await newClient(platform.baseUrl, tenantA.live_key, REDIRECT, LOGGED_OUT)
  rpB = await newClient(platform.baseUrl, tenantB.live_key, REDIRECT, LOGGED_OUT)
}, 60_000)
afterAll(async () => {
  await mailing?.stop()
  await sql.end()
})

const bearer = (token: string, path: string, headers: Record<string, string> = {}, method = "GET") =>
  fetch(`${platform.baseUrl}${path}`, { method, headers: { authorization: `Bearer ${token}`, ...headers } })

/** A member of tenant A signed in at rp A through openid-client: the config, the tokens and the browser. */
const signedIn = async (address = email()) => {
  const memberId = await enrolMember(platform.baseUrl, tenantA.live_key, address)
  const config = await discover(issuer, rpA.client_id, rpA.client_secret)
  const p = await pkce()
  const authUrl = client.buildAuthorizationUrl(config, {
    redirect_uri: REDIRECT, scope: "openid email loyalty", code_challenge: p.challenge, code_challenge_method: "S256", state: p.state
  })
  const b = browser()
  const callback = await signIn(b, platform.baseUrl, authUrl.toString(), sink, address)
  const tokens = await client.authorizationCodeGrant(config, callback, { pkceCodeVerifier: p.verifier, expectedState: p.state })
  return { memberId, config, tokens, b, callback, p, address }
}

describe("Loyalty SSO end to end with a certified relying party (openid-client)", () => {
  it("discovery, PKCE S256, the emailed code, client_secret_basic, id_token against the JWKS, /me/balance, sign-out, then 401", async () => {
    const { memberId, config, tokens, b } = await signedIn()
    const meta = config.serverMetadata()
    expect(meta.issuer).toBe(issuer)
    expect(meta.code_challenge_methods_supported).toEqual(["S256"])
    expect(meta.token_endpoint_auth_methods_supported).toEqual(["client_secret_basic"])
    expect(meta.id_token_signing_alg_values_supported).toEqual(["RS256"])
    // enableNonRepudiationChecks: the id_token's RS256 signature was verified against /api/oidc/jwks.
    const claims = tokens.claims()!
    expect(claims.sub).toBe(memberId)
    expect(tokens.refresh_token).toBeUndefined()

    const balance = await bearer(tokens.access_token, "/api/loyalty/me/balance")
    const body = await balance.json() as { data: Record<string, unknown> }
    expect(balance.status, JSON.stringify(body)).toBe(200)
    expect(body.data).toMatchObject({ member_id: memberId, points_balance: 250 })
    const history = await bearer(tokens.access_token, "/api/loyalty/me/transactions")
    expect(history.status).toBe(200)
    expect(((await history.json()) as { data: { items: Array<unknown> } }).data.items.length).toBeGreaterThan(0)

    const endUrl = client.buildEndSessionUrl(config, { id_token_hint: tokens.id_token!, post_logout_redirect_uri: LOGGED_OUT, state: "s1" })
    const confirmPage = await b.get(endUrl.toString())
    expect(confirmPage.status).toBe(200)
    const form = formOf(await confirmPage.text())
    const out = await b.post(absolute(platform.baseUrl, form.action!), { xsrf: form.xsrf!, logout: "yes" })
    expect(out.status).toBe(303)
    expect(out.headers.get("location")).toBe(`${LOGGED_OUT}?state=s1`)
    const after = await bearer(tokens.access_token, "/api/loyalty/me/balance")
    expect(after.status).toBe(401)
    expect(after.headers.get("www-authenticate")).toBe('Bearer error="invalid_token"')
  })

  it("a member who cancels on the sign-in page is sent back with error=access_denied, which the relying party reads", async () => {
    const config = await discover(issuer, rpA.client_id, rpA.client_secret)
    const p = await pkce()
    const authUrl = client.buildAuthorizationUrl(config, {
      redirect_uri: REDIRECT, scope: "openid loyalty", code_challenge: p.challenge, code_challenge_method: "S256", state: p.state
    })
    const b = browser()
    const page = absolute(platform.baseUrl, (await b.get(authUrl.toString())).headers.get("location"))
    const form = await (await b.get(page)).text()
    expect(form).toContain(`action="${new URL(page).pathname}/abort"`)
    let next = absolute(platform.baseUrl, (await b.post(`${page}/abort`, {})).headers.get("location"))
    while (next.startsWith(platform.baseUrl)) next = absolute(platform.baseUrl, (await b.get(next)).headers.get("location"))
    const callback = new URL(next)
    expect(callback.searchParams.get("error")).toBe("access_denied")
    expect(callback.searchParams.get("state")).toBe(p.state)
    await expect(client.authorizationCodeGrant(config, callback, { pkceCodeVerifier: p.verifier, expectedState: p.state }))
      .rejects.toMatchObject({ error: "access_denied" })
    // The cancelled sign-in is over: its page is gone.
    expect((await b.get(page)).status).toBe(400)
  })

  it("sign-out revokes every outstanding access token of the member, from other sessions too", async () => {
    const address = email()
    const first = await signedIn(address)
    // A second browser session of the same member (a different device).
    const p = await pkce()
    const b2 = browser()
    const cb = await signIn(b2, platform.baseUrl, client.buildAuthorizationUrl(first.config, {
      redirect_uri: REDIRECT, scope: "openid loyalty", code_challenge: p.challenge, code_challenge_method: "S256", state: p.state
    }).toString(), sink, address)
    const second = await client.authorizationCodeGrant(first.config, cb, { pkceCodeVerifier: p.verifier, expectedState: p.state })
    expect((await bearer(second.access_token, "/api/loyalty/me/balance")).status).toBe(200)
    const page = await first.b.get(client.buildEndSessionUrl(first.config, { id_token_hint: first.tokens.id_token!, post_logout_redirect_uri: LOGGED_OUT }).toString())
    const form = formOf(await page.text())
    expect((await first.b.post(absolute(platform.baseUrl, form.action!), { xsrf: form.xsrf!, logout: "yes" })).status).toBe(303)
    expect((await bearer(first.tokens.access_token, "/api/loyalty/me/balance")).status).toBe(401)
    expect((await bearer(second.access_token, "/api/loyalty/me/balance")).status).toBe(401)
  })
})

describe("refusals", () => {
  const authorize = (params: Record<string, string>) =>
    fetch(`${issuer}/auth?${new URLSearchParams({ client_id: rpA.client_id, response_type: "code", scope: "openid", state: "x", ...params })}`, { redirect: "manual" })

  // A relying party builds itself from discovery: what it advertises must exist, and what does not exist must not be advertised.
  it("discovery advertises only what the platform offers: every endpoint it names is in /openapi.json; no refresh tokens, pushed requests or DPoP", async () => {
    const meta = await (await fetch(`${issuer}/.well-known/openid-configuration`)).json() as Record<string, unknown>
    const documented = Object.keys(((await (await fetch(`${platform.baseUrl}/openapi.json`)).json()) as { paths: Record<string, unknown> }).paths)
    const endpoints = Object.entries(meta).filter(([k]) => k.endsWith("_endpoint") || k === "jwks_uri")
    expect(endpoints.map(([k]) => k).sort()).toEqual(["authorization_endpoint", "end_session_endpoint", "jwks_uri", "revocation_endpoint", "token_endpoint", "userinfo_endpoint"])
    for (const [name, url] of endpoints) expect(documented, name).toContain(new URL(url as string).pathname)
    expect(meta.grant_types_supported).toEqual(["authorization_code"])
    expect(meta.response_types_supported).toEqual(["code"])
    expect(meta).not.toHaveProperty("pushed_authorization_request_endpoint")
    expect(meta).not.toHaveProperty("dpop_signing_alg_values_supported")
    expect((await fetch(`${issuer}/request`, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: "client_id=x" })).status).toBe(404)
  })

  it("no PKCE, or plain PKCE, is refused", async () => {
    const cases: Array<Record<string, string>> = [{ redirect_uri: REDIRECT }, { redirect_uri: REDIRECT, code_challenge: "a".repeat(43), code_challenge_method: "plain" }]
    for (const params of cases) {
      const res = await authorize(params)
      expect(res.status).toBe(303)
      const back = new URL(res.headers.get("location")!)
      expect(back.origin + back.pathname).toBe(REDIRECT)
      expect(back.searchParams.get("error")).toBe("invalid_request")
    }
  })

  it("an unregistered redirect_uri is refused on the provider's page, never redirected to", async () => {
    const p = await pkce()
    const res = await authorize({ redirect_uri: "http://127.0.0.1/evil", code_challenge: p.challenge, code_challenge_method: "S256" })
    expect(res.status).toBe(400)
    expect(res.headers.get("location")).toBeNull()
    expect(((await res.json()) as { error: string }).error).toBe("invalid_redirect_uri")
  })

  it("a wrong client secret is refused at the token endpoint; a code is used once", async () => {
    const { callback, p, config, tokens } = await signedIn() // the code was exchanged once already
    expect((await bearer(tokens.access_token, "/api/loyalty/me/balance")).status).toBe(200)
    const wrong = await discover(issuer, rpA.client_id, "gepcs_wrong")
    await expect(client.authorizationCodeGrant(wrong, callback, { pkceCodeVerifier: p.verifier, expectedState: p.state }))
      .rejects.toMatchObject({ status: 401, cause: [{ parameters: { error: "invalid_client" } }] })
    await expect(client.authorizationCodeGrant(config, callback, { pkceCodeVerifier: p.verifier, expectedState: p.state }))
      .rejects.toMatchObject({ error: "invalid_grant" })
    // Code re-use revokes what the first exchange issued (oidc-provider's revokeGrantPolicy).
    expect((await bearer(tokens.access_token, "/api/loyalty/me/balance")).status).toBe(401)
  })

  it("client_secret_post is not accepted", async () => {
    const { callback, p } = await signedIn()
    const res = await fetch(`${issuer}/token`, {
      method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ grant_type: "authorization_code", code: callback.searchParams.get("code")!, redirect_uri: REDIRECT, code_verifier: p.verifier, client_id: rpA.client_id, client_secret: rpA.client_secret })
    })
    expect(res.status).toBe(401)
    expect(((await res.json()) as { error: string }).error).toBe("invalid_client")
  })

  it("a member of tenant A is not a member at tenant B's site: no code is mailed, no code signs in", async () => {
    const address = email()
    await enrolMember(platform.baseUrl, tenantA.live_key, address)
    const b = browser()
    const { page } = await startInteraction(b, platform.baseUrl, rpB.client_id, (await pkce()).challenge)
    await b.get(page)
    expect((await b.post(`${page}/login`, { email: address })).status).toBe(200)
    await new Promise((r) => setTimeout(r, 500))
    expect(sink.mails.filter((m) => m.to.includes(address))).toHaveLength(0)
    expect((await b.post(`${page}/otp`, { code: "123456" })).status).toBe(400)
  })

  it("a code allows five tries, then a new one must be asked for", async () => {
    const address = email()
    await enrolMember(platform.baseUrl, tenantA.live_key, address)
    const b = browser()
    const { page } = await startInteraction(b, platform.baseUrl, rpA.client_id, (await pkce()).challenge)
    await b.get(page)
    await b.post(`${page}/login`, { email: address })
    const answers = []
    for (let i = 0; i < 6; i++) answers.push(await (await b.post(`${page}/otp`, { code: "000000" })).text())
    expect(answers[0]).toContain("4 tries left")
    expect(answers[5]).toContain("expired")
    const row = await sql`SELECT code_hash FROM oidc_sign_in_codes WHERE email = ${address}`
    expect(row[0]!.code_hash).toBeInstanceOf(Uint8Array) // stored hashed, never the code
  })

  it("an expired access token is 401", async () => {
    const { tokens, memberId } = await signedIn()
    expect((await bearer(tokens.access_token, "/api/loyalty/me/balance")).status).toBe(200)
    await sql`UPDATE oidc_models SET expires_at = now() - interval '1 second' WHERE model = 'AccessToken' AND account_id = ${memberId}`
    expect((await bearer(tokens.access_token, "/api/loyalty/me/balance")).status).toBe(401)
  })

  it("the early loyalty headers X-API-Key + X-Tenant-Slug answer 401 pointing to Bearer keys", async () => {
    const res = await fetch(`${platform.baseUrl}/api/v1/loyalty/tiers`, { headers: { "x-api-key": tenantA.live_key, "x-tenant-slug": "hotel" } })
    expect(res.status).toBe(401)
    expect(((await res.json()) as { error: { message: string } }).error.message).toMatch(/Authorization: Bearer/)
  })
})

describe("club transfer", () => {
  const club = (rp: { client_id: string; client_secret: string }, path: string, init: RequestInit = {}) =>
    fetch(`${platform.baseUrl}${path}`, { ...init, headers: { "x-client-id": rp.client_id, "x-client-secret": rp.client_secret, "content-type": "application/json", ...(init.headers as Record<string, string> ?? {}) } })

  it("a one-time code is exchanged once for a transfer token that reads the member; a replay fails and revokes it", async () => {
    const { tokens, memberId } = await signedIn()
    const minted = await bearer(tokens.access_token, "/api/loyalty/me/club-code", {}, "POST")
    expect(minted.status).toBe(201)
    const { code } = ((await minted.json()) as { data: { code: string } }).data
    const exchanged = await club(rpA, "/api/loyalty/club/exchange", { method: "POST", body: JSON.stringify({ code }) })
    expect(exchanged.status).toBe(200)
    const { transfer_token } = ((await exchanged.json()) as { data: { transfer_token: string } }).data
    const me = await club(rpA, "/api/loyalty/club/me", { headers: { authorization: `Bearer ${transfer_token}` } })
    expect(me.status).toBe(200)
    expect(((await me.json()) as { data: Record<string, unknown> }).data).toMatchObject({ member_id: memberId, points_balance: 250 })

    const replay = await club(rpA, "/api/loyalty/club/exchange", { method: "POST", body: JSON.stringify({ code }) })
    expect(replay.status).toBe(400)
    expect(((await replay.json()) as { error: { code: string } }).error.code).toBe("INVALID_GRANT")
    expect((await club(rpA, "/api/loyalty/club/me", { headers: { authorization: `Bearer ${transfer_token}` } })).status).toBe(401)
  })

  it("tenant A's code or transfer token is refused to tenant B's client; wrong client credentials are 401", async () => {
    const { tokens } = await signedIn()
    const code = ((await (await bearer(tokens.access_token, "/api/loyalty/me/club-code", {}, "POST")).json()) as { data: { code: string } }).data.code
    expect((await club(rpB, "/api/loyalty/club/exchange", { method: "POST", body: JSON.stringify({ code }) })).status).toBe(400)
    expect((await club({ ...rpA, client_secret: "wrong" }, "/api/loyalty/club/exchange", { method: "POST", body: JSON.stringify({ code }) })).status).toBe(401)
    const exchanged = await club(rpA, "/api/loyalty/club/exchange", { method: "POST", body: JSON.stringify({ code }) })
    expect(exchanged.status).toBe(200)
    const { transfer_token } = ((await exchanged.json()) as { data: { transfer_token: string } }).data
    expect((await club(rpB, "/api/loyalty/club/me", { headers: { authorization: `Bearer ${transfer_token}` } })).status).toBe(401)
  })

  it("signing out ends the member's club transfers: tokens and codes not yet exchanged", async () => {
    const { tokens, config, b } = await signedIn()
    const mint = async () => ((await (await bearer(tokens.access_token, "/api/loyalty/me/club-code", {}, "POST")).json()) as { data: { code: string } }).data.code
    const [exchangedCode, pendingCode] = [await mint(), await mint()]
    const exchanged = await club(rpA, "/api/loyalty/club/exchange", { method: "POST", body: JSON.stringify({ code: exchangedCode }) })
    const { transfer_token } = ((await exchanged.json()) as { data: { transfer_token: string } }).data
    const page = await b.get(client.buildEndSessionUrl(config, { id_token_hint: tokens.id_token! }).toString())
    const form = formOf(await page.text())
    expect((await b.post(absolute(platform.baseUrl, form.action!), { xsrf: form.xsrf!, logout: "yes" })).status).toBe(303)
    expect((await club(rpA, "/api/loyalty/club/me", { headers: { authorization: `Bearer ${transfer_token}` } })).status).toBe(401)
    expect((await club(rpA, "/api/loyalty/club/exchange", { method: "POST", body: JSON.stringify({ code: pendingCode }) })).status).toBe(400)
  })

  it("a club code expires", async () => {
    const { tokens } = await signedIn()
    const code = ((await (await bearer(tokens.access_token, "/api/loyalty/me/club-code", {}, "POST")).json()) as { data: { code: string } }).data.code
    await sql`UPDATE loyalty_club_codes SET expires_at = now() - interval '1 second' WHERE consumed_at IS NULL AND tenant_id = ${tenantA.tenant_id}`
    expect((await club(rpA, "/api/loyalty/club/exchange", { method: "POST", body: JSON.stringify({ code }) })).status).toBe(400)
  })
})

describe("signing key rotation", () => {
  it("the published next key signs after a rotation; tokens signed before still verify; no request fails meanwhile", async () => {
    const jwks = async () => ((await (await fetch(`${issuer}/jwks`)).json()) as { keys: Array<{ kid: string; kty: string; d?: string }> }).keys
    const before = await jwks()
    expect(before.length).toBeGreaterThanOrEqual(2)
    expect(before.every((k) => k.kty === "RSA" && k.d === undefined)).toBe(true)
    const old = await signedIn()
    const kidOf = (jwt: string) => (JSON.parse(Buffer.from(jwt.split(".")[0]!, "base64url").toString()) as { kid: string }).kid
    const oldKid = kidOf(old.tokens.id_token!)
    const rotated = await rotateSigningKeys(sql, key)
    expect(before.map((k) => k.kid)).toContain(rotated.current_kid)
    expect(rotated.retired_kids).toContain(oldKid)
    await new Promise((r) => setTimeout(r, 1_500))
    const after = (await jwks()).map((k) => k.kid)
    expect(after).toEqual(expect.arrayContaining([rotated.current_kid, rotated.next_kid, oldKid]))
    const fresh = await signedIn()
    expect(kidOf(fresh.tokens.id_token!)).toBe(rotated.current_kid)
    // The old session's access token still works: rotation ends no session.
    expect((await bearer(old.tokens.access_token, "/api/loyalty/me/balance")).status).toBe(200)
  })
})
