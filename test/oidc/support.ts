import { expect } from "@effect/vitest"
import * as client from "openid-client"
import type postgres from "postgres"
import type { SmtpSink } from "../support/smtpSink.ts"

/** A browser without JavaScript: follows nothing by itself, keeps cookies (by name; the provider's names are distinct). */
export const browser = () => {
  const jar = new Map<string, string>()
  const keep = (res: Response) => {
    for (const c of res.headers.getSetCookie()) {
      const [pair, ...attrs] = c.split(";")
      const [name, ...value] = pair!.split("=")
      const expired = attrs.some((a) => /expires=Thu, 01 Jan 1970/i.test(a)) || value.join("=") === ""
      if (expired) jar.delete(name!.trim())
      else jar.set(name!.trim(), value.join("="))
    }
    return res
  }
  const cookie = () => [...jar].map(([k, v]) => `${k}=${v}`).join("; ")
  return {
    jar,
    get: async (url: string) => keep(await fetch(url, { redirect: "manual", headers: { cookie: cookie() } })),
    post: async (url: string, form: Record<string, string>) =>
      keep(await fetch(url, { method: "POST", redirect: "manual", headers: { cookie: cookie(), "content-type": "application/x-www-form-urlencoded" }, body: new URLSearchParams(form) }))
  }
}
export type Browser = ReturnType<typeof browser>

export const absolute = (base: string, location: string | null) => new URL(location!, base).toString()

/** The action and hidden fields of the first form of a page. */
export const formOf = (html: string) => ({
  action: /<form[^>]*action="([^"]+)"/.exec(html)?.[1]?.replaceAll("&#47;", "/"),
  xsrf: /name="xsrf" value="([^"]+)"/.exec(html)?.[1]
})

/** Enrols a member through the loyalty API (with points, so a balance shows). */
export const enrolMember = async (baseUrl: string, key: string, email: string, points = 250) => {
  const res = await fetch(`${baseUrl}/api/v1/loyalty/enroll`, {
    method: "POST", headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({ email, first_name: "Ana", loyalty_balance: points })
  })
  expect(res.status, await res.clone().text()).toBe(201)
  return (await res.json() as { data: { member_id: string } }).data.member_id
}

/** A relying party through the clients API. */
export const newClient = async (baseUrl: string, key: string, redirect: string, postLogout: string) => {
  const res = await fetch(`${baseUrl}/api/v1/oidc/clients`, {
    method: "POST", headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({ name: "Hotel Example", redirect_uris: [redirect], post_logout_redirect_uris: [postLogout] })
  })
  expect(res.status, await res.clone().text()).toBe(201)
  return (await res.json() as { data: { client_id: string; client_secret: string } }).data
}

export const discover = (issuer: string, id: string, secret: string) =>
  client.discovery(new URL(issuer), id, undefined, client.ClientSecretBasic(secret), {
    execute: [client.allowInsecureRequests, client.enableNonRepudiationChecks]
  })

/** The newest code mailed to an address. */
export const codeFor = async (sink: SmtpSink, address: string, after: number) => {
  const deadline = Date.now() + 10_000
  for (;;) {
    const mail = sink.mails.filter((m) => m.to.includes(address)).slice(after)[0]
    if (mail) return /\b(\d{6})\b/.exec(mail.subject)![1]!
    if (Date.now() > deadline) throw new Error(`no code mailed to ${address}`)
    await new Promise((r) => setTimeout(r, 50))
  }
}

/**
 * The whole browser side of a sign-in: authorisation → sign-in page → email → code from the mail → back to the
 * redirect_uri. Answers the callback URL (with code, state, iss).
 */
export const signIn = async (b: Browser, base: string, authUrl: string, sink: SmtpSink, email: string) => {
  const toPage = await b.get(authUrl)
  expect(toPage.status).toBe(303)
  const page = absolute(base, toPage.headers.get("location"))
  expect(new URL(page).pathname).toMatch(/^\/api\/oidc\/interaction\/[^/]+$/)
  const form = await b.get(page)
  expect(form.status).toBe(200)
  expect(await form.text()).toContain('name="email"')
  const before = sink.mails.filter((m) => m.to.includes(email)).length
  const asked = await b.post(`${page}/login`, { email })
  expect(asked.status, await asked.clone().text()).toBe(200)
  const code = await codeFor(sink, email, before)
  const done = await b.post(`${page}/otp`, { code })
  expect(done.status, await done.clone().text()).toBe(303)
  let next = absolute(base, done.headers.get("location"))
  for (let i = 0; i < 5 && next.startsWith(base); i++) {
    const res = await b.get(next)
    expect([302, 303]).toContain(res.status)
    next = absolute(base, res.headers.get("location"))
  }
  return new URL(next)
}

export const pkce = async () => {
  const verifier = client.randomPKCECodeVerifier()
  return { verifier, challenge: await client.calculatePKCECodeChallenge(verifier), state: client.randomState() }
}

export const rows = (sql: postgres.Sql) => ({
  accessTokens: async (memberId: string) => (await sql`SELECT count(*)::int AS n FROM oidc_models WHERE model = 'AccessToken' AND account_id = ${memberId}`)[0]!.n as number
})

/**
 * A member's authorisation code (scope loyalty) for tests of other families (openapi conformance, fuzz) that run no
 * SMTP server: the whole authorisation through the real provider and sign-in pages, except that the emailed code is
 * replaced by a known one in the database (the code is only stored hashed).
 */
export const authorizationCode = async (baseUrl: string, key: string, sql: postgres.Sql) => {
  const { digest } = await import("../../src/oidc/secrets.ts")
  const rp = await newClient(baseUrl, key, "http://127.0.0.1/cb", "http://127.0.0.1/bye")
  // Codes are only issued where an email channel exists (its send fails without an SMTP server; the code is stored).
  await sql`INSERT INTO channel_email (tenant_id, sandbox, from_address)
    SELECT tenant_id, false, 'loyalty@hotelexample.com' FROM oidc_clients WHERE client_id = ${rp.client_id} ON CONFLICT DO NOTHING`
  const address = `sso${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}@gmail.com`
  const memberId = await enrolMember(baseUrl, key, address, 100)
  const p = await pkce()
  const b = browser()
  const { page, uid } = await startInteraction(b, baseUrl, rp.client_id, p.challenge)
  await b.post(`${page}/login`, { email: address })
  await sql`UPDATE oidc_sign_in_codes SET code_hash = ${digest("424242", uid)} WHERE interaction_id = ${uid}`
  let next = absolute(baseUrl, (await b.post(`${page}/otp`, { code: "424242" })).headers.get("location"))
  while (next.startsWith(baseUrl)) next = absolute(baseUrl, (await b.get(next)).headers.get("location"))
  return { code: new URL(next).searchParams.get("code")!, verifier: p.verifier, rp, memberId, b }
}

/** An authorisation request of the client landed on its sign-in page: the page's URL and interaction id. */
export const startInteraction = async (b: Browser, baseUrl: string, clientId: string, challenge: string) => {
  const auth = `${baseUrl}/api/oidc/auth?${new URLSearchParams({
    client_id: clientId, response_type: "code", redirect_uri: "http://127.0.0.1/cb", scope: "openid loyalty", state: "st",
    code_challenge: challenge, code_challenge_method: "S256"
  })}`
  const page = absolute(baseUrl, (await b.get(auth)).headers.get("location"))
  return { page, uid: new URL(page).pathname.split("/").pop()! }
}

export const basic = (rp: { client_id: string; client_secret: string }) => `Basic ${Buffer.from(`${rp.client_id}:${rp.client_secret}`).toString("base64")}`

export const memberAccessToken = async (baseUrl: string, key: string, sql: postgres.Sql) => {
  const a = await authorizationCode(baseUrl, key, sql)
  const res = await fetch(`${baseUrl}/api/oidc/token`, {
    method: "POST",
    headers: { authorization: basic(a.rp), "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ grant_type: "authorization_code", code: a.code, redirect_uri: "http://127.0.0.1/cb", code_verifier: a.verifier })
  })
  expect(res.status, await res.clone().text()).toBe(200)
  const tokens = await res.json() as { access_token: string; id_token: string }
  return { ...tokens, memberId: a.memberId, client: a.rp, browser: a.b }
}

/** A club code of the member, exchanged by the client: its transfer token. */
export const transferToken = async (baseUrl: string, accessToken: string, rp: { client_id: string; client_secret: string }) => {
  const minted = await fetch(`${baseUrl}/api/loyalty/me/club-code`, { method: "POST", headers: { authorization: `Bearer ${accessToken}` } })
  const { code } = (await minted.json() as { data: { code: string } }).data
  const res = await fetch(`${baseUrl}/api/loyalty/club/exchange`, {
    method: "POST", headers: { "x-client-id": rp.client_id, "x-client-secret": rp.client_secret, "content-type": "application/json" }, body: JSON.stringify({ code })
  })
  return (await res.json() as { data: { transfer_token: string } }).data.transfer_token
}
