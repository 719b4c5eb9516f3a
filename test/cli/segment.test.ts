import { afterAll, describe, expect, it } from "@effect/vitest"
import { Effect, Layer, ManagedRuntime } from "effect"
import { execFile } from "node:child_process"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { promisify } from "node:util"
import { inject } from "vitest"
import { AppConfig } from "../../core/config/AppConfig.ts"
import { Database } from "../../core/db/Database.ts"
import { Logging } from "../../core/observability/log.ts"
import { segmentCommand } from "../../src/cli/segment.ts"
import { Segments } from "../../src/segment/Segments.ts"
import { createTenant, testConfig, testSql } from "../support/platform.ts"

const run = promisify(execFile)
const CLI = fileURLToPath(new URL("../../src/cli/main.ts", import.meta.url))
const sql = testSql()
const dir = mkdtempSync(join(tmpdir(), "gep-segment-"))

const runtime = ManagedRuntime.make(Layer.mergeAll(
  Segments.layer.pipe(Layer.provideMerge(Database.layer), Layer.provideMerge(Layer.succeed(AppConfig, AppConfig.of(testConfig("clisegment"))))),
  Logging
))
afterAll(async () => {
  await runtime.dispose()
  await sql.end()
  rmSync(dir, { recursive: true, force: true })
})

/** `gep segment ...` as main.ts runs it after parsing: the command's object, or `{ error }` for a refusal. */
const gep = (action: string, flags: Record<string, string | boolean>): Promise<Record<string, any>> =>
  runtime.runPromise(segmentCommand([action], flags).pipe(
    Effect.map((r) => r as Record<string, any>),
    Effect.catchTag("TenancyError", (e) => Effect.succeed<Record<string, any>>({ error: e.message }))
  ))

const file = (name: string, content: unknown) => {
  const path = join(dir, name)
  writeFileSync(path, typeof content === "string" ? content : JSON.stringify(content))
  return path
}

/** Two contacts of the tenant, one speaking Spanish with email consent, as the actors write them. */
const contacts = async (tenantId: string) => {
  await sql`INSERT INTO contacts (id, tenant_id, sandbox, email, first_name, language, email_consent)
    VALUES (gen_random_uuid(), ${tenantId}, false, ${`cli-${tenantId.slice(0, 8)}@gmail.com`}, 'Ana', 'es', true),
           (gen_random_uuid(), ${tenantId}, false, NULL, 'Bo', 'sv', NULL)`
}

const spanish = { version: 1, match: { field: "contact.language", op: "eq", value: "es" } }

describe("gep segment", () => {
  it("previews a definition from a file, lists and shows saved segments; refusals name what is wrong", async () => {
    const t = await createTenant("cli-segment")
    await contacts(t.tenant_id)
    const preview = await gep("preview", { tenant: t.tenant_id, file: file("es.json", spanish) })
    expect(preview).toMatchObject({ count: 1, reachable: { email: 1, whatsapp: 0 }, category: "marketing", sample: [expect.objectContaining({ first_name: "Ana" })] })
    expect((await gep("preview", { tenant: t.tenant_id, test: true, file: file("es.json", spanish) })).count).toBe(0)

    const saved = await runtime.runPromise(Effect.gen(function*() {
      return yield* (yield* Segments).create({ tenant_id: t.tenant_id, sandbox: false }, { name: "Spanish", definition: spanish as never })
    }))
    expect(await gep("preview", { tenant: t.tenant_id, id: saved.segment_id, category: "utility" })).toMatchObject({ count: 1, category: "utility" })
    expect((await gep("list", { tenant: t.tenant_id })).segments).toEqual([expect.objectContaining({ segment_id: saved.segment_id, name: "Spanish" })])
    expect(await gep("show", { tenant: t.tenant_id, id: saved.segment_id })).toMatchObject({ segment_id: saved.segment_id, definition: spanish })

    expect(await gep("preview", { tenant: t.tenant_id })).toEqual({ error: "give one of --file and --id" })
    expect(await gep("preview", { tenant: t.tenant_id, file: file("bad.json", "{") })).toEqual({ error: expect.stringContaining("--file") })
    expect(await gep("preview", { tenant: t.tenant_id, file: file("unknown.json", { version: 1, match: { field: "contact.shoe_size", op: "eq", value: "42" } }) }))
      .toEqual({ error: expect.stringContaining("definition.match") })
    expect(await gep("preview", { tenant: t.tenant_id, file: file("es.json", spanish), category: "spam" })).toEqual({ error: expect.stringContaining("--category") })
    expect(await gep("show", { tenant: t.tenant_id, id: "00000000-0000-4000-8000-000000000000" })).toEqual({ error: expect.stringContaining("No segment") })
    expect(await gep("drop", { tenant: t.tenant_id })).toEqual({ error: expect.stringContaining("unknown command") })
  }, 60_000)

  it("is wired into gep: flags, one JSON object on stdout, exit codes", async () => {
    const t = await createTenant("cli-segment-process")
    await contacts(t.tenant_id)
    const env = { ...process.env, DATABASE_URL: inject("databaseUrl"), GEP_NAMESPACE: `${inject("namespace")}_clisegment` }
    const gepProcess = (...args: Array<string>) =>
      run(process.execPath, [CLI, "segment", ...args], { env }).then(
        (r) => ({ code: 0, json: JSON.parse(r.stdout.trim()) }),
        (e: { stdout: string; code: number }) => ({ code: e.code, json: JSON.parse(e.stdout.trim()) })
      )
    expect(await gepProcess("preview", "--tenant", t.tenant_id, "--file", file("p.json", spanish)))
      .toEqual({ code: 0, json: expect.objectContaining({ count: 1, reachable: { email: 1, whatsapp: 0 } }) })
    expect(await gepProcess("show", "--tenant", t.tenant_id, "--id", "00000000-0000-4000-8000-000000000000"))
      .toEqual({ code: 2, json: { error: expect.stringContaining("No segment") } })
  }, 90_000)
})
