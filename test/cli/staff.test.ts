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

describe("gep staff", () => {
  it("adds, lists and removes staff as the API does, and refuses what the API refuses with exit 2", async () => {
    const t = await createTenant("cli-staff")
    const env = { ...process.env, DATABASE_URL: inject("databaseUrl"), GEP_NAMESPACE: `${inject("namespace")}_clistaff` }
    const gep = (...args: Array<string>) =>
      run(process.execPath, [CLI, "staff", ...args], { env }).then(
        (r) => ({ code: 0, json: JSON.parse(r.stdout.trim()) }),
        (e: { stdout: string; code: number }) => ({ code: e.code, json: JSON.parse(e.stdout.trim()) })
      )
    const email = `cli.staff.${Date.now()}@hotelexample.com`
    const added = await gep("add", "--tenant", t.tenant_id, "--email", email.toUpperCase(), "--role", "operator")
    expect(added).toEqual({ code: 0, json: expect.objectContaining({ email, role: "operator", last_signed_in_at: null }) })
    expect((await gep("list", "--tenant", t.tenant_id)).json.staff.map((s: { staff_id: string }) => s.staff_id)).toEqual([added.json.staff_id])
    expect(await gep("add", "--tenant", t.tenant_id, "--email", email, "--role", "admin")).toEqual({
      code: 2, json: { error: expect.stringContaining("already an active staff member") }
    })
    expect(await gep("add", "--tenant", t.tenant_id, "--email", "nobody", "--role", "admin")).toEqual({ code: 2, json: { error: expect.stringContaining("--email") } })
    expect(await gep("add", "--tenant", t.tenant_id, "--email", email)).toEqual({ code: 2, json: { error: expect.stringContaining("--role") } })
    expect(await gep("remove", "--tenant", t.tenant_id, "--id", added.json.staff_id)).toEqual({ code: 0, json: expect.objectContaining({ staff_id: added.json.staff_id }) })
    expect((await gep("list", "--tenant", t.tenant_id)).json.staff).toEqual([])
    expect(await gep("remove", "--tenant", t.tenant_id, "--id", added.json.staff_id)).toEqual({ code: 2, json: { error: expect.stringContaining("No staff member") } })
    expect(await gep("fire", "--tenant", t.tenant_id)).toEqual({ code: 2, json: { error: expect.stringContaining("unknown command") } })
    const [row] = await sql`SELECT removed_at FROM staff_accounts WHERE id = ${added.json.staff_id}`
    expect(row!.removed_at).not.toBeNull()
  }, 120_000)
})
