import { readFileSync } from "node:fs"
import { createRequire } from "node:module"
import { join } from "node:path"
import type { BrowserContext, Page } from "playwright-core"
import type { SmtpSink } from "../support/smtpSink.ts"
import { ROOT } from "../docs/reference/sourceFiles.ts"

declare const window: any // inside page.evaluate callbacks (run in Chromium)
declare const document: any

// The console walk's rig: axe-core run inside the page, CSP violations and layout shifts recorded from the first
// script on, screenshots for the guide, and the emailed sign-in code read from the SMTP sink.

export const SCREENSHOTS = join(ROOT, "docs/guide/images")

const axeSource = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8")

/** axe-core's serious and critical violations on the page as it is now, each with the elements it names. */
export const axeViolations = async (page: Page): Promise<Array<string>> => {
  // Evaluated through the DevTools protocol, which the page's CSP does not govern (an inline <script> would be refused).
  if (!(await page.evaluate(() => typeof window.axe === "object"))) await page.evaluate(axeSource)
  const result = await page.evaluate(() => window.axe.run(document, { resultTypes: ["violations"] }))
  return (result.violations as Array<{ id: string; impact: string; nodes: Array<{ target: Array<string> }> }>)
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => `${v.impact} ${v.id}: ${v.nodes.map((n) => n.target.join(" ")).slice(0, 5).join(", ")}`)
}

/**
 * Records, from before the page's own scripts run, every CSP violation (`securitypolicyviolation`) and the layout
 * shifts not caused by input (the CLS sum), read back with `pageRecords`.
 */
export const recordViolationsAndShifts = (context: BrowserContext) => context.addInitScript(() => {
  window.__csp = []
  window.__cls = 0
  document.addEventListener("securitypolicyviolation", (e: any) => window.__csp.push(`${e.violatedDirective} ${e.blockedURI} ${e.sourceFile}:${e.lineNumber}`))
  new window.PerformanceObserver((list: any) => {
    for (const entry of list.getEntries()) if (!entry.hadRecentInput) window.__cls += entry.value
  }).observe({ type: "layout-shift", buffered: true })
})

export const pageRecords = (page: Page): Promise<{ csp: Array<string>; cls: number }> =>
  page.evaluate(() => ({ csp: window.__csp as Array<string>, cls: window.__cls as number }))

/** The 6-digit code of the newest sign-in mail to `address` that arrived after the first `after` mails to it. */
export const signInCode = async (sink: SmtpSink, address: string, after: number): Promise<string> => {
  const deadline = Date.now() + 20_000
  for (;;) {
    const mails = sink.mails.filter((m) => m.to.includes(address))
    const code = mails.length > after ? /\b(\d{6})\b/.exec(`${mails.at(-1)!.subject} ${mails.at(-1)!.text ?? ""}`)?.[1] : undefined
    if (code !== undefined) return code
    if (Date.now() > deadline) throw new Error(`no sign-in code mailed to ${address}`)
    await new Promise((r) => setTimeout(r, 100))
  }
}

/** Width the page needs beyond the viewport (0: no horizontal scrolling). */
export const overflow = (page: Page): Promise<number> =>
  page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)
