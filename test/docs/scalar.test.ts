import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import type { Browser, Page } from "playwright-core"
import { launchChromium, waitUntil } from "../sdk/support.ts"
import { startPlatform, type RunningPlatform } from "../support/platform.ts"

declare const document: any // inside page.evaluate callbacks (run in Chromium)

// /docs as a reader sees it: Scalar (inlined, about 3.6 MB) rendering /openapi.json in Debian's Chromium. Its request
// samples must tell integrators to send `Authorization: Bearer <key>`; with the scheme declared `Bearer` (Effect's
// HttpApiSecurity.bearer) Scalar did not recognise it and wrote `Authorization: Basic` into every sample (issue 24, B2).

let platform: RunningPlatform
let browser: Browser

beforeAll(async () => {
  ;[platform, browser] = await Promise.all([startPlatform("docsui"), launchChromium()])
})
afterAll(async () => {
  await browser?.close()
  await platform?.stop()
})

/** The text of every rendered request sample (Scalar's code blocks of the operations' request examples). */
const samples = (page: Page): Promise<Array<string>> =>
  page.evaluate(() => [...document.querySelectorAll(".code-snippet pre code")].map((c: any) => String(c.textContent)))

describe("/docs in Chromium", () => {
  it("renders every request sample with Authorization: Bearer, none with Basic", async () => {
    const page = await browser.newPage()
    await page.goto(`${platform.baseUrl}/docs`, { waitUntil: "load", timeout: 90_000 })
    const first = await waitUntil(async () => {
      const s = await samples(page)
      return s.some((t) => t.includes("Authorization")) ? s : undefined
    }, 60_000)
    // Open another group (the webhooks family) so its operations' samples render too.
    await page.getByText("webhooks", { exact: true }).first().click()
    const all = await waitUntil(async () => {
      const s = await samples(page)
      return s.length > first.length ? s : undefined
    }, 30_000)
    const withAuth = all.filter((t) => t.includes("Authorization"))
    expect(withAuth.length).toBeGreaterThanOrEqual(4)
    for (const sample of withAuth) expect(sample).toMatch(/Authorization: Bearer \S+/)
    const text: string = await page.evaluate(() => document.body.innerText)
    expect(text).toContain("Authorization: Bearer")
    expect(text).not.toMatch(/\bBasic\b/)
    expect(all.join("\n")).not.toMatch(/\bBasic\b/)
  })
})
