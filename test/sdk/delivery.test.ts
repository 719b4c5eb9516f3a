import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import type { Browser } from "playwright-core"
import { bundleSdk } from "../../src/sdk/bundle.ts"
import { guestEmail, unique } from "../website/support.ts"
import {
  abandonOnLeave, launchChromium, leave, openPage, pageErrors, type PageServer, sdk, sleep, startPageServer, startStub, type Stub,
  waitUntil
} from "./support.ts"

declare const window: any // inside page.evaluate callbacks (run in Chromium)

// How svc-events.js sends, in Debian's Chromium against a stub endpoint on another origin that records every request
// (preflights and beacons included) and answers what a test tells it: no platform needed, the page server serves the
// script as the platform builds it.
let browser: Browser
let pages: PageServer
let stub: Stub

beforeAll(async () => {
  pages = await startPageServer({ code: (await bundleSdk()).code })
  stub = await startStub()
  browser = await launchChromium()
})
afterAll(async () => {
  await browser?.close()
  await Promise.all([pages?.close(), stub?.close()])
})

const stubInit = (extra: Record<string, unknown> = {}) => ({ key: `svc_pk_${"D".repeat(40)}`, endpoint: stub.url, ...extra })
const preflights = () => stub.arrivals.filter((r) => r.method === "OPTIONS")

describe("svc-events.js retries, queue and tabs (stub endpoint)", () => {
  const events = () => stub.arrivals.filter((a) => a.method === "POST").flatMap((a) => a.body.events as Array<any>)

  it("network error, 429 and 5xx are retried after 1, 2, 4 s or Retry-After; five attempts in all", async () => {
    stub.arrivals.length = 0
    stub.answers.push({ status: 0 }, { status: 429, headers: { "retry-after": "3" } }, { status: 500 }, { status: 202 })
    const context = await browser.newContext()
    const page = await openPage(context, pages.origin, stubInit())
    await sdk(page, "track", "search.performed")
    await sdk(page, "flush")
    await waitUntil(() => stub.arrivals.length >= 4, 30_000)
    const t = stub.arrivals.map((a) => a.at)
    const gaps = t.slice(1).map((x, i) => x - t[i]!)
    console.info(`retry gaps (ms): ${gaps.join(", ")}`)
    expect(gaps[0]).toBeGreaterThanOrEqual(950) // 1 s after the cut connection
    expect(gaps[0]).toBeLessThan(1_900)
    expect(gaps[1]).toBeGreaterThanOrEqual(2_950) // Retry-After: 3 instead of 2 s
    expect(gaps[1]).toBeLessThan(3_900)
    expect(gaps[2]).toBeGreaterThanOrEqual(3_950) // 4 s after the third failure
    expect(gaps[2]).toBeLessThan(4_900)
    expect(new Set(stub.arrivals.map((a) => JSON.stringify(a.body))).size).toBe(1) // the same batch each time

    stub.arrivals.length = 0
    for (let i = 0; i < 6; i++) stub.answers.push({ status: 503, headers: { "retry-after": "0" } })
    await sdk(page, "track", "search.performed")
    await sdk(page, "flush")
    await waitUntil(() => stub.arrivals.length >= 5)
    await sleep(1_500)
    expect(stub.arrivals).toHaveLength(5)
    stub.answers.length = 0
    expect(preflights()).toEqual([])
    await context.close()
  }, 60_000)

  it("offline, at most 50 events wait: the oldest are dropped and the last 50 arrive once online", async () => {
    stub.arrivals.length = 0
    const context = await browser.newContext()
    const page = await openPage(context, pages.origin, stubInit())
    await context.setOffline(true)
    await page.evaluate(() => { for (let i = 0; i < 60; i++) (window as any).svcEvents.track("offer.viewed", { properties: { n: i } }) })
    await sleep(1_500)
    expect(stub.arrivals).toHaveLength(0)
    await context.setOffline(false)
    await waitUntil(() => events().length >= 50)
    await sleep(500)
    expect(events().map((e) => e.properties.n)).toEqual(Array.from({ length: 50 }, (_, i) => i + 10))
    expect(stub.arrivals.every((a) => a.contentType === "text/plain;charset=UTF-8")).toBe(true)
    await context.close()
  })

  it("identify stays in its tab: a second tab sends no contact; with persistContact the tab keeps it across pages", async () => {
    stub.arrivals.length = 0
    const context = await browser.newContext()
    const email = guestEmail()
    const first = await openPage(context, pages.origin, stubInit({ persistContact: true }))
    await sdk(first, "identify", { email })
    await first.reload()
    await first.evaluate((o) => (window as any).svcEvents.init(o), stubInit({ persistContact: true }))
    await sdk(first, "track", "tab.one")
    await sdk(first, "flush")
    const second = await openPage(context, pages.origin, stubInit({ persistContact: true }))
    await sdk(second, "track", "tab.two")
    await sdk(second, "flush")
    await waitUntil(() => events().length >= 2)
    expect(events().find((e) => e.event === "tab.one")?.contact).toEqual({ email })
    expect(events().find((e) => e.event === "tab.two")?.contact).toBeUndefined()
    expect(await context.cookies()).toEqual([])
    await context.close()
  })

  it("when sendBeacon refuses, the leave report goes by fetch keepalive", async () => {
    stub.arrivals.length = 0
    const context = await browser.newContext()
    await context.addInitScript(() => { (navigator as any).sendBeacon = () => false })
    const page = await openPage(context, pages.origin, stubInit())
    const cart = unique("cart")
    await sdk(page, "identify", { phone: "+34 600 123 456" })
    await abandonOnLeave(page, { cart_id: cart, stage: "details" })
    await leave(page, pages.origin)
    await waitUntil(() => events().length >= 1)
    expect(events()).toEqual([expect.objectContaining({ event: "cart.abandoned", idempotency_key: `cart.abandoned:details:${cart}` })])
    expect(stub.arrivals.map((a) => [a.method, a.mode])).toEqual([["POST", "cors"]]) // a fetch, not a beacon
    await context.close()
  })
})

describe("svc-events.js pages", () => {
  it("no script error on any page, no preflight ever", () => {
    expect(pageErrors).toEqual([])
    expect(preflights()).toEqual([])
  })
})
