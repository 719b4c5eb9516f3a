import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { actAsTenant, withTenant } from "../../../core/db/Database.ts"
import { phone, reservation } from "../../support/fixtures.ts"
import { createTenant, post, startPlatform, testSql, type RunningPlatform, type TestTenant } from "../../support/platform.ts"

let platform: RunningPlatform
let a: TestTenant
let b: TestTenant
const sql = testSql()

beforeAll(async () => {
  platform = await startPlatform("rls")
  ;[a, b] = await Promise.all([createTenant("rls-a"), createTenant("rls-b")])
  await post(platform.baseUrl, "/api/v1/reservations", a.live_key, reservation({ hotel_code: a.hotel_code }, { guests: [{ first_name: "A", phone: phone(1) }] }))
  await post(platform.baseUrl, "/api/v1/reservations", b.live_key, reservation({ hotel_code: b.hotel_code }, { guests: [{ first_name: "B", phone: phone(1) }] }))
})
afterAll(async () => {
  await platform?.stop()
  await sql.end()
})

describe("row-level security (defence in depth)", () => {
  it("covers every table with a tenant_id column, whichever migration made it", async () => {
    const uncovered = await sql`
      SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = 'public' AND c.relkind = 'r'
        AND EXISTS (SELECT 1 FROM pg_attribute a WHERE a.attrelid = c.oid AND a.attname = 'tenant_id' AND NOT a.attisdropped)
        AND (NOT c.relrowsecurity OR NOT EXISTS (SELECT 1 FROM pg_policy p WHERE p.polrelid = c.oid AND p.polname = 'tenant_isolation'))`
    expect(uncovered.map((r) => r.relname)).toEqual([])
  })

  it("a tenant-confined transaction sees only its tenant's rows, even with no tenant filter in the query", async () => {
    const seen = await withTenant(sql, a.tenant_id, async (tx) => ({
      reservations: (await tx`SELECT DISTINCT tenant_id FROM reservations`).map((r) => r.tenant_id),
      contacts: (await tx`SELECT DISTINCT tenant_id FROM contacts`).map((r) => r.tenant_id),
      inbox: (await tx`SELECT DISTINCT tenant_id FROM inbox`).map((r) => r.tenant_id)
    }))
    expect(seen).toEqual({ reservations: [a.tenant_id], contacts: [a.tenant_id], inbox: [a.tenant_id] })
  })

  it("cannot change or insert another tenant's rows", async () => {
    const changed = await withTenant(sql, a.tenant_id, (tx) => tx`UPDATE contacts SET first_name = 'hacked' WHERE tenant_id = ${b.tenant_id} RETURNING id`)
    expect(changed.length).toBe(0)
    await expect(sql.begin(async (tx) => {
      await actAsTenant(tx, a.tenant_id)
      await tx`INSERT INTO events (id, tenant_id, sandbox, type, payload) VALUES (gen_random_uuid(), ${b.tenant_id}, false, 'x.y', '{}')`
    })).rejects.toThrow(/row-level security/)
    const [c] = await sql`SELECT first_name FROM contacts WHERE tenant_id = ${b.tenant_id}`
    expect(c!.first_name).toBe("B")
  })
})
