import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Result } from "effect"
import { request as httpRequest } from "node:http"
import { parseTrustedProxies } from "../../src/http/forwarded.ts"
import { createTenant, startPlatform, testSql, type RunningPlatform } from "../support/platform.ts"
import { createSource } from "../website/support.ts"

// The client's address behind trusted load balancers: what the delivery log, consent evidence and per-address limits see.

const sql = testSql()
let platform: RunningPlatform

beforeAll(async () => {
  // A request from 127.0.0.1 comes through a trusted proxy; one from 127.0.0.2 (loopback too) from a client directly.
  process.env.GEP_TRUSTED_PROXIES = "10.0.0.0/8, 127.0.0.1"
  platform = await startPlatform("xff")
})
afterAll(async () => {
  await platform?.stop()
  await sql.end()
})

/** POSTs an empty website event from `from` with this X-Forwarded-For: the status. */
const postFrom = (from: string, serverKey: string, forwardedFor: string) => new Promise<number>((resolve, reject) => {
  const url = new URL("/api/v1/website-events", platform.baseUrl)
  const req = httpRequest(url, {
    method: "POST", localAddress: from,
    headers: { authorization: `Bearer ${serverKey}`, "content-type": "application/json", "x-forwarded-for": forwardedFor }
  }, (res) => {
    res.resume()
    res.on("end", () => resolve(res.statusCode!))
  })
  req.on("error", reject)
  req.end("{}")
})

/** The address the delivery log recorded for one request from `from` with these X-Forwarded-For values. */
const loggedAddress = async (from: string, forwardedFor: string) => {
  const tenant = await createTenant("xff")
  const source = await createSource(platform.baseUrl, tenant.live_key)
  expect(await postFrom(from, source.server_key, forwardedFor)).toBe(422) // an empty event: refused, logged like any request
  const [row] = await sql`SELECT ip FROM website_deliveries WHERE source_id = ${source.source_id}`
  return row!.ip as string
}

describe("GEP_TRUSTED_PROXIES", () => {
  it("parses addresses and CIDR networks, and names the entry that is neither", () => {
    const ok = parseTrustedProxies(" 10.0.0.0/8, 192.168.1.7 ,::1, fd00::/8,")
    expect(Result.isSuccess(ok) && ok.success.length).toBe(4)
    expect(parseTrustedProxies("")).toEqual(Result.succeed([]))
    const bad = parseTrustedProxies("10.0.0.0/8, lb.internal")
    expect(Result.isFailure(bad) && bad.failure).toBe('GEP_TRUSTED_PROXIES: "lb.internal" is neither an IP address nor a CIDR network')
    expect(Result.isFailure(parseTrustedProxies("10.0.0.0/33"))).toBe(true)
  })

  it("behind a trusted proxy, the client is the right-most X-Forwarded-For address that is not a trusted proxy", async () => {
    expect(await loggedAddress("127.0.0.1", "203.0.113.9")).toBe("203.0.113.9")
    // Two balancers in the private network; a client-supplied left-most entry is not believed.
    expect(await loggedAddress("127.0.0.1", "198.51.100.66, 203.0.113.9, 10.1.2.3")).toBe("203.0.113.9")
  })

  it("from a peer that is not a trusted proxy, X-Forwarded-For is ignored: the peer is the client", async () => {
    expect(await loggedAddress("127.0.0.2", "203.0.113.9")).toMatch(/127\.0\.0\.2$/)
  })
})
