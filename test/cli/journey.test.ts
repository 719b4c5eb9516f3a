import { afterAll, describe, expect, it } from "@effect/vitest"
import { Effect, Layer, ManagedRuntime } from "effect"
import { execFile } from "node:child_process"
import { fileURLToPath } from "node:url"
import { promisify } from "node:util"
import { inject } from "vitest"
import { AppConfig } from "../../core/config/AppConfig.ts"
import { Database } from "../../core/db/Database.ts"
import { Logging } from "../../core/observability/log.ts"
import { journeyCommand } from "../../src/cli/journey.ts"
import { JourneyDefinitions } from "../../src/journey/JourneyDefinitions.ts"
import { createTenant, testConfig } from "../support/platform.ts"

const run = promisify(execFile)
const CLI = fileURLToPath(new URL("../../src/cli/main.ts", import.meta.url))

const runtime = ManagedRuntime.make(Layer.mergeAll(
  JourneyDefinitions.layer.pipe(Layer.provideMerge(Database.layer), Layer.provideMerge(Layer.succeed(AppConfig, AppConfig.of(testConfig("clijourney"))))),
  Logging
))
afterAll(() => runtime.dispose())

/** `gep journey ...` as main.ts runs it after parsing: the command's object, or `{ error }` for a refusal. */
const gep = (action: string, flags: Record<string, string | boolean>): Promise<Record<string, any>> =>
  runtime.runPromise(journeyCommand([action], flags).pipe(
    Effect.map((r) => r as Record<string, any>),
    Effect.catchTag("TenancyError", (e) => Effect.succeed<Record<string, any>>({ error: e.message }))
  ))

const newJourney = (tenantId: string, sandbox = false) =>
  runtime.runPromise(Effect.gen(function*() {
    const journeys = yield* JourneyDefinitions
    return yield* journeys.create({ tenant_id: tenantId, sandbox }, {
      name: "Welcome", trigger: { type: "event", event: "booking.created" }, steps: [{ id: "done", type: "end" }]
    })
  }))

describe("gep journey", () => {
  it("lists, shows, activates, pauses and archives with the API's rules; refusals name what is wrong", async () => {
    const t = await createTenant("cli-journey")
    const { journey_id: id } = await newJourney(t.tenant_id)
    const flags = { tenant: t.tenant_id, id }
    expect((await gep("list", { tenant: t.tenant_id })).journeys).toEqual([expect.objectContaining({ journey_id: id, status: "draft", steps: 1 })])
    expect(await gep("list", { tenant: t.tenant_id, test: true })).toEqual({ journeys: [] })
    expect(await gep("show", flags)).toMatchObject({ journey_id: id, version: 1, steps: [{ id: "done", type: "end" }] })
    expect(await gep("pause", flags)).toEqual({ error: expect.stringContaining("draft") })
    expect(await gep("activate", flags)).toMatchObject({ status: "active" })
    expect((await gep("list", { tenant: t.tenant_id, status: "active" })).journeys).toHaveLength(1)
    expect(await gep("pause", flags)).toMatchObject({ status: "paused" })
    expect(await gep("archive", flags)).toMatchObject({ status: "archived" })
    expect(await gep("activate", flags)).toEqual({ error: expect.stringContaining("archived") })
    expect(await gep("show", { tenant: t.tenant_id, id: "00000000-0000-4000-8000-000000000000" })).toEqual({ error: expect.stringContaining("No journey") })
    expect(await gep("show", { tenant: t.tenant_id })).toEqual({ error: "missing --id" })
    expect(await gep("list", { tenant: t.tenant_id, status: "sleeping" })).toEqual({ error: expect.stringContaining("--status") })
    expect(await gep("rename", flags)).toEqual({ error: expect.stringContaining("unknown command") })
  }, 60_000)

  it("is wired into gep: flags, one JSON object on stdout, exit codes", async () => {
    const t = await createTenant("cli-journey-process")
    const { journey_id: id } = await newJourney(t.tenant_id)
    const env = { ...process.env, DATABASE_URL: inject("databaseUrl"), GEP_NAMESPACE: `${inject("namespace")}_clijourney` }
    const gepProcess = (...args: Array<string>) =>
      run(process.execPath, [CLI, "journey", ...args], { env }).then(
        (r) => ({ code: 0, json: JSON.parse(r.stdout.trim()) }),
        (e: { stdout: string; code: number }) => ({ code: e.code, json: JSON.parse(e.stdout.trim()) })
      )
    expect(await gepProcess("activate", "--tenant", t.tenant_id, "--id", id)).toEqual({ code: 0, json: expect.objectContaining({ journey_id: id, status: "active" }) })
    expect(await gepProcess("pause", "--tenant", t.tenant_id, "--id", id, "--test")).toEqual({ code: 2, json: { error: expect.stringContaining("No journey") } })
  }, 90_000)
})
