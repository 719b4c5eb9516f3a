import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Effect, Layer, ManagedRuntime } from "effect"
import { chmodSync, mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import postgres from "postgres"
import { AppConfig } from "../../core/config/AppConfig.ts"
import { Database } from "../../core/db/Database.ts"
import { Tenancy } from "../../src/tenancy/Tenancy.ts"
import { freePort, startPlatform, testConfig, type RunningPlatform } from "../support/platform.ts"
import { FULL, runLoad } from "./load.ts"
import { services } from "./services.ts"

// A throwaway PostgreSQL of this test's own, so stopping it disturbs nothing else on the machine.
let dataDir: string
let env: Record<string, string>
let platform: RunningPlatform | undefined

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), "gep-chaos-pg-"))
  chmodSync(dataDir, 0o755)
  env = { GEP_SERVICES_DATA: dataDir, DATABASE_URL: `postgres://postgres@127.0.0.1:${await freePort()}/gep_chaos` }
  await services("up", env)
})
afterAll(async () => {
  await platform?.stop()
  await services("down", env).catch(() => undefined)
  rmSync(dataDir, { recursive: true, force: true })
})

describe("PostgreSQL stopped during load", () => {
  it("answers 503 with Retry-After (never 500), then resumes by itself with nothing acknowledged lost", async () => {
    const databaseUrl = env.DATABASE_URL!
    platform = await startPlatform("chaos_pg", { overrides: { databaseUrl, replyTimeoutMs: 3_000, partitions: 4 } })
    const admin = ManagedRuntime.make(Tenancy.layer.pipe(Layer.provideMerge(Database.layer), Layer.provide(Layer.succeed(AppConfig, AppConfig.of(testConfig("admin", { databaseUrl }))))))
    const { tenant, hotel } = await admin.runPromise(Effect.gen(function*() {
      const t = yield* Tenancy
      const tenant = yield* t.createTenant(`Chaos PG ${Date.now()}`)
      yield* t.createHotel(tenant.tenant_id, { code: "PG1", name: "Chaos PG hotel", timezone: "UTC" })
      return { tenant, hotel: "PG1" }
    }))
    await admin.dispose()

    const outageMs = FULL ? 10_000 : 6_000
    let stoppedAt = 0
    let startedAt = 0
    const outage = (async () => {
      await new Promise((r) => setTimeout(r, 2_000))
      await services("pg-stop", env)
      stoppedAt = Date.now()
      await new Promise((r) => setTimeout(r, outageMs))
      await services("up", env)
      startedAt = Date.now()
    })()
    const load = await runLoad(platform.baseUrl, tenant.live_key, hotel, { ids: 50, total: FULL ? 3_000 : 700, concurrency: 25, prefix: "pg", until: outage })
    await outage
    console.log(JSON.stringify({ chaos: "postgres", outage_ms: startedAt - stoppedAt, answered2xx: load.answered2xx, retried503: load.answered503, other: load.other }))
    expect(load.other).toEqual([]) // never a 500 (nor anything but 2xx and 503)
    expect(load.answered503).toBeGreaterThan(0)
    expect(load.missingRetryAfter).toBe(0)
    const sql = postgres(databaseUrl, { max: 1, onnotice: () => {} })
    try {
      const rows = await sql`SELECT external_id, amount::int AS amount FROM reservations WHERE tenant_id = ${tenant.tenant_id}`
      const stored = new Map(rows.map((r) => [r.external_id as string, r.amount as number]))
      expect([...load.lastAcked].filter(([id, v]) => stored.get(id) !== v)).toEqual([])
      expect(rows.length).toBe(50)
    } finally {
      await sql.end()
    }
  })
})
