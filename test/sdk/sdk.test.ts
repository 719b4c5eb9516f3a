import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { createHash } from "node:crypto"
import { gzipSync } from "node:zlib"
import type { Browser } from "playwright-core"
import { createJourney } from "../support/journeys.ts"
import { createTenant, startPlatform, testSql, type RunningPlatform, type TestTenant } from "../support/platform.ts"
import { createSource, guestEmail, type Source, unique } from "../website/support.ts"
import {
  abandonOnLeave, launchChromium, leave, openPage, pageErrors, type PageServer, sdk, sleep, startPageServer, startWire,
  type Wire, waitUntil
} from "./support.ts"

// Browser globals used inside page.evaluate callbacks (run in Chromium, not in Node).
declare const document: any
declare const window: any
declare const sessionStorage: any
declare const localStorage: any

// The browser SDK in Debian's Chromium against the platform: the platform on http://127.0.0.1:P1 (seen by the browser
// through a recording pass-through, the "wire", which counts preflights and beacons), the booking page on
// http://localhost:P2 (listed in the source's allowed origins), an unlisted page on http://localhost:P3. Retries, the
// queue, tabs and the keepalive fallback against a stub endpoint: delivery.test.ts.
let platform: RunningPlatform
let tenant: TestTenant
let source: Source
let browser: Browser
let pages: PageServer
let unlisted: PageServer
let wire: Wire
const sql = testSql()

beforeAll(async () => {
  platform = await startPlatform("sdk")
  tenant = await createTenant("sdk")
  wire = await startWire(platform.baseUrl)
  const sdkUrl = `${wire.url}/sdk/svc-events.js`
  pages = await startPageServer(sdkUrl)
  unlisted = await startPageServer(sdkUrl)
  source = await createSource(platform.baseUrl, tenant.live_key, { allowed_origins: [pages.origin] })
  // Events are stored only when a journey listens (rule 7): two that wait a day make them observable.
  for (const event of ["cart.abandoned", "checkout.completed"]) {
    await createJourney(sql, tenant, { name: unique(event), trigger: { type: "event", event }, steps: [{ id: "w", type: "wait", duration: "P1D" }] })
  }
  browser = await launchChromium()
})
afterAll(async () => {
  await browser?.close()
  await Promise.all([pages?.close(), unlisted?.close(), wire?.close()])
  await platform?.stop()
  await sql.end()
})

const init = (extra: Record<string, unknown> = {}) => ({ key: source.browser_key, hotelCode: tenant.hotel_code, ...extra })
const posts = (since = 0) => wire.seen.filter((r) => r.at >= since && r.method === "POST" && r.path.startsWith("/api/v1/website-events"))
const preflights = () => wire.seen.filter((r) => r.method === "OPTIONS")
const storedEvents = (cart: string) =>
  sql`SELECT event, idempotency_key, payload FROM website_events WHERE tenant_id = ${tenant.tenant_id} AND cart_id = ${cart} ORDER BY received_at`
const deliveries = (sourceId: string) =>
  sql`SELECT status, error_code, origin, accepted, rejected, results FROM website_deliveries WHERE source_id = ${sourceId} ORDER BY id`

describe("GET /sdk/svc-events.js", () => {
  it("serves one small script with an ETag, a short cache and a published integrity hash", async () => {
    const res = await fetch(`${platform.baseUrl}/sdk/svc-events.js`)
    expect(res.status).toBe(200)
    expect(res.headers.get("content-type")).toMatch(/^application\/javascript/)
    expect(res.headers.get("cache-control")).toBe("public, max-age=300")
    const etag = res.headers.get("etag")!
    const code = await res.text()
    const gzip = gzipSync(Buffer.from(code), { level: 9 }).length
    console.info(`svc-events.js: ${code.length} bytes, ${gzip} bytes gzipped`)
    expect(gzip).toBeLessThan(5 * 1024)
    expect(code).not.toMatch(/\brequire\(|\bimport\b|document\.cookie|localStorage/)
    expect((await fetch(`${platform.baseUrl}/sdk/svc-events.js`, { headers: { "if-none-match": etag } })).status).toBe(304)
    const sri = await (await fetch(`${platform.baseUrl}/sdk/svc-events.js.sri`)).json() as { integrity: string }
    expect(sri.integrity).toBe(`sha384-${createHash("sha384").update(code).digest("base64")}`)
  })
})

describe("svc-events.js in Chromium against the platform", () => {
  it("loads from another origin with the published integrity hash, and not with a wrong one", async () => {
    const { integrity } = await (await fetch(`${platform.baseUrl}/sdk/svc-events.js.sri`)).json() as { integrity: string }
    const context = await browser.newContext()
    const page = await context.newPage()
    await page.goto(`${pages.origin}/sri.html?integrity=${encodeURIComponent(integrity)}`)
    expect(await page.evaluate(() => typeof window.svcEvents?.init)).toBe("function")
    await page.goto(`${pages.origin}/sri.html?integrity=${encodeURIComponent(integrity.replace(/.{4}$/, "AAA="))}`)
    expect(await page.evaluate(() => typeof window.svcEvents)).toBe("undefined")
    await context.close()
  })

  it("track is accepted from the listed origin as text/plain, with no OPTIONS request and no cookie", async () => {
    const context = await browser.newContext()
    const page = await openPage(context, pages.origin, init())
    const answer = page.waitForResponse((r) => r.url().includes("/api/v1/website-events"))
    await sdk(page, "track", "search.performed", { context: { check_in: "2027-05-01", check_out: "2027-05-03", adults: 2 } })
    const res = await answer
    expect(res.status()).toBe(202)
    expect(await res.json()).toMatchObject({ accepted: 1, rejected: 0 })
    expect(res.request().headers()["content-type"]).toBe("text/plain;charset=UTF-8")
    expect(res.request().url()).toContain(`key=${source.browser_key}`)
    const [row] = await deliveries(source.source_id)
    expect(row).toMatchObject({ status: 202, origin: pages.origin, accepted: 1 })
    expect(preflights()).toEqual([])
    expect(await context.cookies()).toEqual([])
    expect(await page.evaluate(() => document.cookie)).toBe("")
    await context.close()
  })

  it("a guest leaving with a cart and an email sends cart.abandoned by beacon, once per cart and stage", async () => {
    const context = await browser.newContext()
    const start = Date.now()
    const page = await openPage(context, pages.origin, init())
    const cart = unique("cart")
    await sdk(page, "identify", { email: guestEmail(), first_name: "Ana" })
    // A field the contract does not know (items) is left out rather than getting the event refused.
    await abandonOnLeave(page, { cart_id: cart, stage: "payment", room_name: "Sea View", resume_url: "https://book.example.com/r/1", items: [{ sku: "x" }] })
    // Hidden tab (visibilitychange→hidden), then the page goes away (pagehide): one report for this cart and stage.
    await page.evaluate(() => {
      Object.defineProperty(document, "visibilityState", { value: "hidden", configurable: true })
      document.dispatchEvent(new Event("visibilitychange"))
    })
    await leave(page, pages.origin)
    const rows = await waitUntil(async () => { const r = await storedEvents(cart); return r.length > 0 ? r : undefined })
    await sleep(1_000)
    expect(await storedEvents(cart)).toHaveLength(1)
    expect(rows[0]).toMatchObject({ event: "cart.abandoned", idempotency_key: `cart.abandoned:payment:${cart}` })
    expect(rows[0]!.payload.context).toMatchObject({ cart_id: cart, stage: "payment", hotel_code: tenant.hotel_code, room_name: "Sea View" })
    expect(rows[0]!.payload.context.items).toBeUndefined()
    expect(posts(start).map((r) => r.mode)).toEqual(["no-cors"]) // one request, and it was a beacon
    expect(preflights()).toEqual([])
    expect(await context.cookies()).toEqual([])
    await context.close()
  })

  it("completed sends checkout.completed and stops abandonment for that cart", async () => {
    const context = await browser.newContext()
    const page = await openPage(context, pages.origin, init())
    const cart = unique("cart")
    await sdk(page, "identify", { email: guestEmail() })
    await abandonOnLeave(page, { cart_id: cart, stage: "payment" })
    await sdk(page, "completed", { cart_id: cart, value: 240, currency: "EUR" })
    const rows = await waitUntil(async () => { const r = await storedEvents(cart); return r.length > 0 ? r : undefined })
    await leave(page, pages.origin)
    await sleep(2_000)
    expect((await storedEvents(cart)).map((r) => r.event)).toEqual(["checkout.completed"])
    expect(rows[0]!.payload.context).toMatchObject({ cart_id: cart, value: 240, currency: "EUR" })
    expect(await context.cookies()).toEqual([])
    await context.close()
  })

  it("waitForConsent sends and stores nothing before allow, then sends; after deny nothing ever", async () => {
    const quiet = await createSource(platform.baseUrl, tenant.live_key, { allowed_origins: [pages.origin] })
    const context = await browser.newContext()
    const start = Date.now()
    const page = await openPage(context, pages.origin, { key: quiet.browser_key, waitForConsent: true, persistContact: true })
    const cart = unique("cart")
    await sdk(page, "identify", { email: guestEmail() }, { text: "Send me offers from Hotel Example by email", form_id: "checkout" })
    await sdk(page, "track", "room.selected", { context: { cart_id: cart } })
    await abandonOnLeave(page, { cart_id: cart, stage: "room" })
    await page.evaluate(() => document.dispatchEvent(new Event("visibilitychange")))
    await sleep(1_500)
    expect(posts(start)).toEqual([])
    expect(await page.evaluate(() => [sessionStorage.length, localStorage.length, document.cookie])).toEqual([0, 0, ""])
    await sdk(page, "allow")
    await waitUntil(async () => (await deliveries(quiet.source_id)).length > 0)
    expect((await deliveries(quiet.source_id))[0]).toMatchObject({ status: 202, accepted: 1 })
    expect(await page.evaluate(() => sessionStorage.getItem("svc_events"))).toContain("@")

    const denied = await openPage(context, pages.origin, { key: quiet.browser_key, waitForConsent: true, persistContact: true })
    const before = posts(start).length
    await sdk(denied, "deny")
    await sdk(denied, "identify", { email: guestEmail() })
    await sdk(denied, "track", "room.selected")
    await abandonOnLeave(denied, { cart_id: unique("cart"), stage: "room" })
    await sdk(denied, "allow")
    await sdk(denied, "flush")
    expect(await denied.evaluate(() => [sessionStorage.length, localStorage.length, document.cookie])).toEqual([0, 0, ""])
    await leave(denied, pages.origin)
    await sleep(1_500)
    expect(posts(start)).toHaveLength(before)
    expect(await deliveries(quiet.source_id)).toHaveLength(1)
    expect(await context.cookies()).toEqual([])
    await context.close()
  })

  it("a 4xx is not retried: an unknown key gets one 401, an unlisted origin one 403", async () => {
    const context = await browser.newContext()
    const start = Date.now()
    const bad = await openPage(context, pages.origin, init({ key: `svc_pk_${"A".repeat(40)}` }))
    await sdk(bad, "track", "search.performed")
    await sdk(bad, "flush")
    const other = await openPage(context, unlisted.origin, init())
    const refused = other.waitForResponse((r) => r.url().includes("/api/v1/website-events"))
    await sdk(other, "track", "search.performed")
    await sdk(other, "flush")
    expect((await refused).status()).toBe(403)
    await sleep(3_500) // past the first two retry delays (1 s, 2 s)
    expect(posts(start).filter((r) => r.path.includes("AAAA"))).toHaveLength(1)
    expect(posts(start).filter((r) => r.path.includes(source.browser_key))).toHaveLength(1)
    expect(preflights()).toEqual([])
    const refusedRows = (await deliveries(source.source_id)).filter((r) => r.error_code === "origin_not_allowed")
    expect(refusedRows).toEqual([expect.objectContaining({ status: 403, origin: unlisted.origin })])
    expect(await context.cookies()).toEqual([])
    await context.close()
  })
})

describe("svc-events.js pages", () => {
  it("no script error on any page, no preflight ever", () => {
    expect(preflights()).toEqual([])
    expect(pageErrors).toEqual([])
  })
})
