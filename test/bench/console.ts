/**
 * The console's load times (issue 27 item 8: "loads in < 1 s on the benchmark's 1,000,000-reservation database"), on
 * the overview phase's account (`overviewFill.ts`) with an ingress of its own: a staff operator signs in through the
 * API with the code emailed to the SMTP sink, the session cookie goes into Debian's Chromium, and four screens are
 * opened by URL: the overview (until the charts' tables are rendered), a contact with its timeline, the deliveries,
 * the journeys list. Each screen first "cold" (the first visit; the very first also makes the ingress compile the
 * console's bundle), then "warm" (median of 3 visits, each in a fresh browser context so the browser's cache does not
 * hide the server). For each visit: the time from navigation start to the screen's content in the page, the page's
 * own response, and each API call it made with the server's share of it (request start to first byte), so a slow
 * screen says whether the API or the page limits it. Keys under `console` in the JSON.
 */
import { loadavg } from "node:os"
import type postgres from "postgres"
import type { Browser, BrowserContext } from "playwright-core"
import { signInCode } from "../console/support.ts"
import { launchChromium } from "../sdk/support.ts"
import type { SmtpSink } from "../support/smtpSink.ts"
import { round } from "./load.ts"

declare const document: any // inside page callbacks (run in Chromium)
declare const performance: any

/** The screens timed: where, and what shows it is loaded. */
const screens = (contactId: string) => [
  { name: "overview", path: "/console", shown: "figure.chart-figure table" },
  { name: "contact", path: `/console/contacts/${contactId}`, shown: "[data-testid='timeline-item']" },
  { name: "deliveries", path: "/console/deliveries", shown: "[data-testid='delivery-row']" },
  { name: "journeys", path: "/console/journeys", shown: "table a" }
] as const

interface Visit {
  /** Navigation start to the screen's content rendered (the first animation frame that has it). */
  readonly shown_ms: number
  /** Navigation start to the page's last byte (the HTML shell), and to DOMContentLoaded (the bundle ran). */
  readonly page_response_ms: number
  readonly dom_content_loaded_ms: number
  /** Each API call of the screen: its whole duration in the browser and the server's part (request sent to first byte). */
  readonly api: ReadonlyArray<{ readonly path: string; readonly ms: number; readonly server_ms: number }>
  readonly assets_ms: number
}

/** Signs `email` in through the API with the emailed code: the session cookie's `name=value`. */
const signIn = async (baseUrl: string, sink: SmtpSink, email: string): Promise<string> => {
  const before = sink.mails.filter((m) => m.to.includes(email)).length
  const sent = await fetch(`${baseUrl}/api/v1/staff/sign-in`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ email }) })
  if (sent.status !== 202) throw new Error(`sign-in answered ${sent.status}: ${await sent.text()}`)
  const code = await signInCode(sink, email, before)
  const verified = await fetch(`${baseUrl}/api/v1/staff/sign-in/verify`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ email, code }) })
  if (verified.status !== 200) throw new Error(`verify answered ${verified.status}: ${await verified.text()}`)
  const cookie = verified.headers.getSetCookie().find((c) => c.startsWith("gep_staff_session="))
  if (cookie === undefined) throw new Error("no session cookie")
  return cookie.split(";")[0]!
}

const visit = async (browser: Browser, baseUrl: string, cookie: string, screen: { path: string; shown: string }): Promise<Visit> => {
  const [name, value] = [cookie.slice(0, cookie.indexOf("=")), cookie.slice(cookie.indexOf("=") + 1)]
  const context: BrowserContext = await browser.newContext({ viewport: { width: 1280, height: 860 }, baseURL: baseUrl })
  try {
    await context.addCookies([{ name, value, url: baseUrl }])
    const page = await context.newPage()
    await page.goto(screen.path, { waitUntil: "commit" })
    const shown = await page.waitForFunction((sel: string) => (document.querySelector(sel) ? performance.now() : false), screen.shown, { polling: "raf", timeout: 60_000 })
    const shownMs = (await shown.jsonValue()) as number
    const timing = await page.evaluate(() => {
      const nav = performance.getEntriesByType("navigation")[0]
      const resources = performance.getEntriesByType("resource") as Array<any>
      return {
        page_response_ms: nav.responseEnd, dom_content_loaded_ms: nav.domContentLoadedEventEnd,
        api: resources.filter((r) => r.name.includes("/api/")).map((r) => ({
          path: new URL(r.name).pathname + new URL(r.name).search, ms: r.duration, server_ms: r.responseStart - r.requestStart
        })),
        assets_ms: Math.max(0, ...resources.filter((r) => r.name.includes("/console/assets/")).map((r) => r.responseEnd))
      }
    })
    return {
      shown_ms: round(shownMs, 1), page_response_ms: round(timing.page_response_ms, 1), dom_content_loaded_ms: round(timing.dom_content_loaded_ms, 1),
      api: timing.api.map((a: { path: string; ms: number; server_ms: number }) => ({ path: a.path, ms: round(a.ms, 1), server_ms: round(a.server_ms, 1) })),
      assets_ms: round(timing.assets_ms, 1)
    }
  } finally {
    await context.close()
  }
}

const median = (xs: ReadonlyArray<Visit>): Visit => [...xs].sort((a, b) => a.shown_ms - b.shown_ms)[Math.floor(xs.length / 2)]!

/** Times the screens on an account already filled (`tenantId`), through `baseUrl`'s ingress mailing to `sink`. */
export const consolePhase = async (o: {
  readonly sql: postgres.Sql
  readonly baseUrl: string
  readonly sink: SmtpSink
  readonly tenantId: string
  readonly addStaff: (email: string) => Promise<unknown>
}) => {
  // The sign-in code goes out through the tenant's email channel.
  await o.sql`INSERT INTO channel_email (tenant_id, sandbox, from_address, from_name)
    VALUES (${o.tenantId}, false, 'console@hotelexample.com', 'Bench Hotel') ON CONFLICT DO NOTHING`
  const email = `operator.${Date.now()}@bench-console.net`
  await o.addStaff(email)
  // A guest of the fill with messages on their timeline.
  const [contact] = await o.sql`SELECT c.id FROM contacts c WHERE c.tenant_id = ${o.tenantId} AND c.email = 'ov2@bench-overview.net'`
  if (contact === undefined) throw new Error("the overview account is not filled")
  const cookie = await signIn(o.baseUrl, o.sink, email)
  const browser = await launchChromium()
  try {
    const cold: Record<string, Visit> = {}
    const warm: Record<string, Visit> = {}
    for (const screen of screens(contact.id as string)) cold[screen.name] = await visit(browser, o.baseUrl, cookie, screen)
    for (const screen of screens(contact.id as string)) {
      const runs: Array<Visit> = []
      for (let i = 0; i < 3; i++) runs.push(await visit(browser, o.baseUrl, cookie, screen))
      warm[screen.name] = median(runs)
    }
    const slowest = Math.max(...Object.values(warm).map((v) => v.shown_ms))
    // Each API call the warm screens made, again with no page open (median of 5 after one, one at a time): what the
    // server takes alone, against what it took beside Chromium starting the page on the same two cores.
    const paths = [...new Set(Object.values(warm).flatMap((v) => v.api.map((a) => a.path)))]
    const apiAlone: Record<string, number> = {}
    for (const path of paths) {
      const times: Array<number> = []
      for (let i = 0; i < 6; i++) {
        const started = performance.now()
        const res = await fetch(`${o.baseUrl}${path}`, { headers: { cookie } })
        await res.arrayBuffer()
        if (i > 0) times.push(performance.now() - started)
      }
      apiAlone[path] = round([...times].sort((a, b) => a - b)[2]!, 1)
    }
    return {
      api_alone_ms: apiAlone,
      cold_shown_ms: Object.fromEntries(Object.entries(cold).map(([k, v]) => [k, v.shown_ms])),
      warm_shown_ms: Object.fromEntries(Object.entries(warm).map(([k, v]) => [k, v.shown_ms])),
      slowest_warm_ms: slowest,
      // The machine's load while the screens were timed: on a shared 2-core machine, a figure is only as good as the cores it got.
      loadavg_after: loadavg().map((x) => round(x)),
      cold, warm
    }
  } finally {
    await browser.close()
  }
}
