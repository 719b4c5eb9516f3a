import { afterAll, describe, expect, it } from "@effect/vitest"
import { execFile } from "node:child_process"
import { fileURLToPath } from "node:url"
import { promisify } from "node:util"
import { inject } from "vitest"
import { insertBroadcast } from "../support/broadcasts.ts"
import { createTenant, testSql } from "../support/platform.ts"

const run = promisify(execFile)
const CLI = fileURLToPath(new URL("../../src/cli/main.ts", import.meta.url))
const sql = testSql()
afterAll(() => sql.end())

describe("gep broadcast", () => {
  it("status prints the broadcast as the API reads it; an unknown one is refused with exit 2", async () => {
    const t = await createTenant("cli-broadcast")
    const id = await insertBroadcast(sql, t, { definition: { version: 1, match: { field: "contact.language", op: "eq", value: "es" } } })
    await sql`INSERT INTO broadcast_recipients (broadcast_id, contact_id, tenant_id, sandbox, status, skip_reason)
      VALUES (${id}, gen_random_uuid(), ${t.tenant_id}, false, 'skipped', 'cancelled')`
    const env = { ...process.env, DATABASE_URL: inject("databaseUrl"), GEP_NAMESPACE: `${inject("namespace")}_clibroadcast` }
    const gep = (...args: Array<string>) =>
      run(process.execPath, [CLI, "broadcast", ...args], { env }).then(
        (r) => ({ code: 0, json: JSON.parse(r.stdout.trim()) }),
        (e: { stdout: string; code: number }) => ({ code: e.code, json: JSON.parse(e.stdout.trim()) })
      )
    expect(await gep("status", "--tenant", t.tenant_id, "--id", id)).toEqual({
      code: 0, json: expect.objectContaining({ broadcast_id: id, status: "sending", phase: "dispatching", counts: expect.objectContaining({ targeted: 1, skipped: 1, skipped_by_reason: { cancelled: 1 } }) })
    })
    expect(await gep("status", "--tenant", t.tenant_id, "--id", id, "--test")).toEqual({ code: 2, json: { error: expect.stringContaining("No broadcast") } })
    expect(await gep("status", "--tenant", t.tenant_id)).toEqual({ code: 2, json: { error: "missing --id" } })
  }, 90_000)
})
