import { afterAll, beforeAll, describe, expect, inject, it } from "@effect/vitest"
import { createTenant, startPlatform, testSql, type RunningPlatform } from "../support/platform.ts"
import { startTcpProxy, type TcpProxy } from "../support/tcpProxy.ts"
import { basic, browser, memberAccessToken, newClient, pkce, startInteraction } from "./support.ts"
import { eventually } from "../support/webhook.ts"

// The database away under the provider's own routes and the sign-in pages: 503 with Retry-After, as everywhere else.

const sql = testSql()
let proxy: TcpProxy
let platform: RunningPlatform

beforeAll(async () => {
  const db = new URL(inject("databaseUrl"))
  proxy = await startTcpProxy({ host: db.hostname, port: Number(db.port || 5432) })
  db.host = `127.0.0.1:${proxy.port}`
  platform = await startPlatform("ssodown", { overrides: { databaseUrl: db.toString() } })
})
afterAll(async () => {
  proxy?.restore()
  await platform?.stop()
  await proxy?.close()
  await sql.end()
})

const token = (rp: { client_id: string; client_secret: string }) => fetch(`${platform.baseUrl}/api/oidc/token`, {
  method: "POST",
  headers: { authorization: basic(rp), "content-type": "application/x-www-form-urlencoded" },
  body: new URLSearchParams({ grant_type: "authorization_code", code: "not-a-code", redirect_uri: "http://127.0.0.1/cb", code_verifier: "v".repeat(43) })
})

describe("Loyalty SSO with the database away", () => {
  it("the provider's routes and the sign-in page answer 503 with Retry-After, and work again when it is back", async () => {
    const tenant = await createTenant("ssodown")
    const rp = await newClient(platform.baseUrl, tenant.live_key, "http://127.0.0.1/cb", "http://127.0.0.1/bye")
    const b = browser()
    const { page } = await startInteraction(b, platform.baseUrl, rp.client_id, (await pkce()).challenge)
    const member = await memberAccessToken(platform.baseUrl, tenant.live_key, sql)
    const balance = () => fetch(`${platform.baseUrl}/api/loyalty/me/balance`, { headers: { authorization: `Bearer ${member.access_token}` } })

    proxy.cut()
    try {
      const refused = await token(rp)
      expect(refused.status, await refused.clone().text()).toBe(503)
      expect(refused.headers.get("retry-after")).toBe("2")
      expect(await refused.json()).toMatchObject({ error: "temporarily_unavailable" })
      const signIn = await b.get(page)
      expect(signIn.status).toBe(503)
      expect(signIn.headers.get("retry-after")).toBe("2")
      expect(await signIn.text()).toContain("Temporarily unavailable")
      // A member route cannot read the token: the database's fault, not the token's (503, never 401).
      const away = await balance()
      expect(away.status, await away.clone().text()).toBe(503)
      expect(away.headers.get("retry-after")).toBe("2")
    } finally {
      proxy.restore()
    }
    // Back: the same request is judged on its merits (an unknown code), the page is the email form again.
    await eventually("the token endpoint back", async () => {
      const res = await token(rp)
      return res.status === 400 ? await res.json() : undefined
    }).then((body) => expect(body).toMatchObject({ error: "invalid_grant" }))
    expect((await b.get(page)).status).toBe(200)
    expect((await balance()).status).toBe(200)
  })
})
