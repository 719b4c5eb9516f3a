import { describe, expect, it } from "@effect/vitest"
import { spawn } from "node:child_process"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { inject } from "vitest"
import { freePort, testSql } from "../support/platform.ts"
import { launchChromium, waitUntil } from "./support.ts"

const CLI = fileURLToPath(new URL("../../src/cli/main.ts", import.meta.url))

// `gep start` (what `npm start` runs) serves the SDK's demo booking page against the demo tenant; a guest's visit in
// Chromium ends with cart.abandoned accepted by the platform.
describe("the browser SDK demo page of gep start", () => {
  it("prints the page's URL, and a visit identifies (a contact created, shown on the page), leaves with a cart and is accepted", async () => {
    const dir = mkdtempSync(join(tmpdir(), "gep-sdk-demo-"))
    const port = await freePort()
    const env: Record<string, string> = {
      ...process.env as Record<string, string>, DATABASE_URL: inject("databaseUrl"), NATS_URL: inject("natsUrl"),
      GEP_NAMESPACE: `${inject("namespace")}_sdkdemo`, PORT: String(port), GEP_PARTITIONS: "2", GEP_DB_POOL_SIZE: "4",
      GEP_DEMO_FILE: join(dir, "demo-tenant.json"), GEP_LOG_LEVEL: "warn"
    }
    delete env.GEP_SMTP_URL
    const child = spawn(process.execPath, [CLI, "start"], { env, stdio: ["ignore", "pipe", "pipe"] })
    let stdout = "", stderr = ""
    child.stdout.on("data", (d) => (stdout += d))
    child.stderr.on("data", (d) => (stderr += d))
    const sql = testSql()
    const browser = await launchChromium()
    try {
      await waitUntil(() => stdout.includes("\n") || child.exitCode !== null, 60_000)
      const line = JSON.parse(stdout.trim() || "{}")
      expect(line.sdk_demo, stderr).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:${port}/sdk/demo\\.html#key=svc_pk_\\w+&hotel=DEMO-BCN&mail=http%3A%2F%2F127\\.0\\.0\\.1%3A\\d+$`))
      const context = await browser.newContext()
      const page = await context.newPage()
      const errors: Array<Error> = []
      page.on("pageerror", (e) => { errors.push(e) })
      await page.goto(line.sdk_demo)
      await page.check("#optin")
      await page.click("#identify")
      // The pre-filled guest is a person the platform accepts: the page shows the platform's verdict, not a bare status.
      await page.click("#search")
      const verdict = await waitUntil(async () => {
        const log = await page.textContent("#log")
        return log?.includes("platform →") ? log : undefined
      })
      expect(verdict).toMatch(/platform → 202 event 0: accepted \(accepted: [^)]*\); contact (created|matched)/)
      expect(verdict).toContain(`their emails land in the mail catcher: ${line.mail_ui}`)
      await page.click("text=leave the page")
      await page.goBack()
      await waitUntil(async () => (await page.textContent("#log"))?.includes("cart.abandoned"))
      const [row] = await waitUntil(async () => {
        const rows = await sql`SELECT d.status, d.accepted, d.origin FROM website_deliveries d JOIN website_sources s ON s.id = d.source_id
          WHERE s.tenant_id = ${line.demo_tenant.tenant_id} AND d.accepted > 0`
        return rows.length > 0 ? rows : undefined
      })
      expect(row).toMatchObject({ status: 202, origin: `http://127.0.0.1:${port}` })
      expect(errors).toEqual([])
      expect(await context.cookies()).toEqual([])
    } finally {
      await browser.close()
      await sql.end()
      child.kill("SIGTERM")
      rmSync(dir, { recursive: true, force: true })
    }
  }, 120_000)
})
