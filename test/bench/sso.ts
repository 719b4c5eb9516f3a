import { createHash, randomBytes } from "node:crypto"
import type postgres from "postgres"
import { digest } from "../../src/oidc/secrets.ts"
import { Latencies, round } from "./load.ts"

// Loyalty SSO: (1) complete passwordless sign-ins per second, each the whole browser path through the real provider
// (authorisation → sign-in page → email → code → back → token exchange with client_secret_basic); the emailed code is
// replaced in the database by a known one (the tenant has no email channel here: the SMTP hand-off is the messages
// phase's figure). (2) `GET /api/loyalty/me/balance` per second with members' access tokens (token lookup in the
// provider's PostgreSQL adapter, grant check, then the loyalty read).

const REDIRECT = "http://127.0.0.1/cb"

const jar = () => {
  const cookies = new Map<string, string>()
  const keep = (res: Response) => {
    for (const c of res.headers.getSetCookie()) {
      const [pair] = c.split(";")
      const [name, ...value] = pair!.split("=")
      if (value.join("=") === "") cookies.delete(name!.trim())
      else cookies.set(name!.trim(), value.join("="))
    }
    return res
  }
  const header = () => [...cookies].map(([k, v]) => `${k}=${v}`).join("; ")
  return {
    get: async (url: string) => keep(await fetch(url, { redirect: "manual", headers: { cookie: header() } })),
    post: async (url: string, form: Record<string, string>) => keep(await fetch(url, {
      method: "POST", redirect: "manual", headers: { cookie: header(), "content-type": "application/x-www-form-urlencoded" }, body: new URLSearchParams(form)
    }))
  }
}

const signIn = async (o: { sql: postgres.Sql; baseUrl: string; client: { client_id: string; client_secret: string }; email: string }) => {
  const verifier = randomBytes(32).toString("base64url")
  const challenge = createHash("sha256").update(verifier).digest("base64url")
  const b = jar()
  const auth = `${o.baseUrl}/api/oidc/auth?${new URLSearchParams({
    client_id: o.client.client_id, response_type: "code", redirect_uri: REDIRECT, scope: "openid loyalty", state: "s", code_challenge: challenge, code_challenge_method: "S256"
  })}`
  const page = new URL((await b.get(auth)).headers.get("location")!, o.baseUrl).toString()
  const uid = new URL(page).pathname.split("/").pop()!
  await (await b.get(page)).text()
  const asked = await b.post(`${page}/login`, { email: o.email })
  await asked.text()
  if (asked.status !== 200 && asked.status !== 503) throw new Error(`login ${asked.status}`)
  await o.sql`UPDATE oidc_sign_in_codes SET code_hash = ${digest("424242", uid)} WHERE interaction_id = ${uid}`
  const to = (res: Response) => {
    const location = res.headers.get("location")
    if (location === null) throw new Error(`no redirect: ${res.status}`)
    return new URL(location, o.baseUrl).toString()
  }
  let next = to(await b.post(`${page}/otp`, { code: "424242" }))
  for (let hops = 0; next.startsWith(o.baseUrl); hops++) {
    if (hops > 5) throw new Error("redirect loop")
    next = to(await b.get(next))
  }
  const res = await fetch(`${o.baseUrl}/api/oidc/token`, {
    method: "POST",
    headers: { authorization: `Basic ${Buffer.from(`${o.client.client_id}:${o.client.client_secret}`).toString("base64")}`, "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ grant_type: "authorization_code", code: new URL(next).searchParams.get("code") ?? "", redirect_uri: REDIRECT, code_verifier: verifier })
  })
  if (res.status !== 200) throw new Error(`token exchange ${res.status}`)
  return (await res.json() as { access_token: string }).access_token
}

export const ssoPhase = async (o: { readonly sql: postgres.Sql; readonly baseUrl: string; readonly coreKey: string; readonly runId: string; readonly durationS: number }) => {
  const api = (path: string, body: unknown) => fetch(`${o.baseUrl}${path}`, {
    method: "POST", headers: { authorization: `Bearer ${o.coreKey}`, "content-type": "application/json" }, body: JSON.stringify(body)
  }).then((r) => r.json() as Promise<{ data: Record<string, string> }>)
  await fetch(`${o.baseUrl}/api/v1/loyalty/program`, {
    method: "PUT", headers: { authorization: `Bearer ${o.coreKey}`, "content-type": "application/json" },
    body: JSON.stringify({ currency: "EUR", points_per_unit: 10, points_per_night: 100, expiry_months: 24, point_value: 0.01 })
  })
  const client = (await api("/api/v1/oidc/clients", { name: `Bench ${o.runId}`, redirect_uris: [REDIRECT] })).data as unknown as { client_id: string; client_secret: string }
  // Codes are only issued where an email channel exists (without an SMTP server its send fails fast; the code is stored).
  await o.sql`INSERT INTO channel_email (tenant_id, sandbox, from_address)
    SELECT tenant_id, false, 'loyalty@hotelexample.com' FROM oidc_clients WHERE client_id = ${client.client_id} ON CONFLICT DO NOTHING`
  const members = Array.from({ length: 64 }, (_, i) => `sso-${o.runId}-${i}@bench-guests.net`)
  for (const email of members) await api("/api/v1/loyalty/enroll", { email, loyalty_balance: 500 })

  // (1) sign-ins, 8 browsers at a time
  const signInLatency = new Latencies()
  const tokens: Array<string> = []
  let failed = 0
  let n = 0
  const start = performance.now()
  await Promise.all(Array.from({ length: 8 }, async () => {
    while (performance.now() - start < o.durationS * 1000) {
      const t0 = performance.now()
      try {
        tokens.push(await signIn({ sql: o.sql, baseUrl: o.baseUrl, client, email: members[n++ % members.length]! }))
        signInLatency.add(performance.now() - t0)
      } catch {
        failed++
      }
    }
  }))
  const signInSeconds = (performance.now() - start) / 1000

  // (2) member reads, 32 at a time
  const readLatency = new Latencies()
  const statuses: Record<string, number> = {}
  let i = 0
  const readStart = performance.now()
  await Promise.all(Array.from({ length: 32 }, async () => {
    while (performance.now() - readStart < o.durationS * 1000) {
      const t0 = performance.now()
      const res = await fetch(`${o.baseUrl}/api/loyalty/me/balance`, { headers: { authorization: `Bearer ${tokens[i++ % tokens.length]}` } })
      await res.arrayBuffer()
      readLatency.add(performance.now() - t0)
      statuses[res.status] = (statuses[res.status] ?? 0) + 1
    }
  }))
  const readSeconds = (performance.now() - readStart) / 1000
  return {
    sign_ins: { completed: signInLatency.count, failed, per_s: round(signInLatency.count / signInSeconds), latency_ms: signInLatency.summary() },
    me_balance: { requests: readLatency.count, statuses, per_s: round(readLatency.count / readSeconds), latency_ms: readLatency.summary() }
  }
}
