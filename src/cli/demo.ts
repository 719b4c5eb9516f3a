import { Effect } from "effect"
import { chmod, mkdir, readFile, writeFile } from "node:fs/promises"
import { dirname } from "node:path"
import { fileURLToPath } from "node:url"
import { Tenancy } from "../tenancy/Tenancy.ts"
import { Database } from "../../core/db/Database.ts"

/** GEP_DEMO_FILE moves it (a test's `gep start` must not replace a developer's demo keys). */
const DEMO_FILE = process.env.GEP_DEMO_FILE || fileURLToPath(new URL("../../.data/demo-tenant.json", import.meta.url))

export interface DemoTenant {
  readonly tenant_id: string
  readonly live_key: string
  readonly test_key: string
  readonly hotel_id: string
  readonly hotel_code: string
}

/**
 * On the first start, a demo tenant with one hotel, its keys saved to .data/demo-tenant.json (mode 0600, never
 * committed) so later starts can print them again; keys themselves are stored only as hashes in the database.
 */
export const ensureDemoTenant = Effect.gen(function*() {
  const db = yield* Database
  const tenancy = yield* Tenancy
  const saved = yield* Effect.promise(() => readFile(DEMO_FILE, "utf8").then((s) => JSON.parse(s) as DemoTenant, () => undefined))
  if (saved) {
    const still = yield* db.attempt((sql) => sql`SELECT 1 FROM tenants WHERE id = ${saved.tenant_id}`)
    if (still.length > 0) return { ...saved, first_run: false }
  }
  const name = `Demo Hotels ${new Date().toISOString().slice(0, 10)} ${Math.random().toString(36).slice(2, 6)}`
  const tenant = yield* tenancy.createTenant(name)
  const hotel = yield* tenancy.createHotel(tenant.tenant_id, { code: "DEMO-BCN", name: "Demo Barcelona", timezone: "Europe/Madrid" })
  const demo: DemoTenant = { ...tenant, hotel_id: hotel.hotel_id, hotel_code: "DEMO-BCN" }
  yield* Effect.promise(async () => {
    await mkdir(dirname(DEMO_FILE), { recursive: true })
    await writeFile(DEMO_FILE, JSON.stringify(demo, null, 2), { mode: 0o600 })
    await chmod(DEMO_FILE, 0o600)
  })
  return { ...demo, first_run: true }
})
