import { afterAll, describe, expect, it } from "@effect/vitest"
import { execFile } from "node:child_process"
import { fileURLToPath } from "node:url"
import { promisify } from "node:util"
import { inject } from "vitest"
import { createTenant, testSql } from "../support/platform.ts"

const run = promisify(execFile)
const CLI = fileURLToPath(new URL("../../src/cli/main.ts", import.meta.url))
const sql = testSql()
afterAll(() => sql.end())

describe("gep privacy", () => {
  it("suppresses and lifts as the API does, shows a request, and refuses what the API refuses with exit 2", async () => {
    const t = await createTenant("cli-privacy")
    const env = { ...process.env, DATABASE_URL: inject("databaseUrl"), GEP_NAMESPACE: `${inject("namespace")}_cliprivacy` }
    const gep = (...args: Array<string>) =>
      run(process.execPath, [CLI, "privacy", ...args], { env }).then(
        (r) => ({ code: 0, json: JSON.parse(r.stdout.trim()) }),
        (e: { stdout: string; code: number }) => ({ code: e.code, json: JSON.parse(e.stdout.trim()) })
      )
    const email = `cli.privacy.${Date.now()}@gmail.com`
    const suppressed = await gep("suppress", "--tenant", t.tenant_id, "--email", email, "--reference", "T-1")
    expect(suppressed).toEqual({ code: 0, json: expect.objectContaining({
      type: "suppress", subject_kind: "email", reference: "T-1", status: "completed",
      results: [{ store: "privacy_suppressions", action: "suppressed", count: 1 }]
    }) })
    expect(JSON.stringify(suppressed.json)).not.toContain(email)
    const [row] = await sql`SELECT requested_by FROM privacy_requests WHERE id = ${suppressed.json.request_id}`
    expect(row!.requested_by).toBe("cli")
    expect(await gep("status", "--tenant", t.tenant_id, "--id", suppressed.json.request_id)).toEqual({
      code: 0, json: expect.objectContaining({ request_id: suppressed.json.request_id, status: "completed" })
    })
    expect((await gep("unsuppress", "--tenant", t.tenant_id, "--email", email)).json.results).toEqual([
      { store: "privacy_suppressions", action: "unsuppressed", count: 1 }
    ])
    expect(await gep("erase", "--tenant", t.tenant_id, "--email", email, "--phone", "+34600111222")).toEqual({
      code: 2, json: { error: "name the person by exactly one of --email, --phone, --contact" }
    })
    expect(await gep("erase", "--tenant", t.tenant_id, "--phone", "12")).toEqual({ code: 2, json: { error: expect.stringContaining("--phone") } })
    expect(await gep("forget", "--tenant", t.tenant_id, "--email", email)).toEqual({ code: 2, json: { error: expect.stringContaining("unknown command") } })
    expect(await gep("status", "--tenant", t.tenant_id, "--id", "00000000-0000-4000-8000-000000000000")).toEqual({
      code: 2, json: { error: expect.stringContaining("No privacy request") }
    })
  }, 120_000)
})
