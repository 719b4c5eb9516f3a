import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { UPDATE_CONTACTS } from "../../../actors/shared/contactStore.ts"
import { actAsTenant } from "../../../core/db/Database.ts"
import { createTenant, testSql, type TestTenant } from "../../support/platform.ts"

// The contact update runs in every reservation group that meets a known guest. Its plan must not depend on the
// planner's statistics: on a young table (analysed at 2,000 contacts, holding 20,000) the former join read the
// tenant's every contact three times (hashed, 25 ms a group on the benchmark instead of 0.9 ms).
let tenant: TestTenant
const sql = testSql()

beforeAll(async () => {
  tenant = await createTenant("contact-store")
  const fill = (from: number, to: number) => sql`
    INSERT INTO contacts (id, tenant_id, sandbox, phone, email)
    SELECT gen_random_uuid(), ${tenant.tenant_id}, false, '+3491' || lpad(i::text, 7, '0'),
      CASE WHEN i % 3 = 0 THEN NULL ELSE 'store' || i || '@example.com' END
    FROM generate_series(${from}::int, ${to}::int) AS i`
  await fill(1, 2_000)
  await sql`ANALYZE contacts`
  await fill(2_001, 20_000)
}, 60_000)
afterAll(() => sql.end())

describe("updateContacts' statement", () => {
  it.each(["force_generic_plan", "force_custom_plan"])("looks contacts up by key and address, never scans them (%s)", async (mode) => {
    const people = await sql<Array<{ id: string }>>`
      SELECT id FROM contacts WHERE tenant_id = ${tenant.tenant_id} AND email IS NULL ORDER BY phone LIMIT 3`
    const plan = await sql.begin(async (tx) => {
      await actAsTenant(tx, tenant.tenant_id)
      await tx.unsafe(`SET LOCAL plan_cache_mode = ${mode}`)
      const records = people.map((p, i) => ({ id: p.id, dob_fill: false, address_fill: false, first_name: `N${i}`, email: `new-${i}@example.com` }))
      const rows = await tx.unsafe(`EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF) ${UPDATE_CONTACTS}`, [tenant.tenant_id, false, records as never])
      throw Object.assign(new Error("rollback"), { plan: rows.map((r) => r["QUERY PLAN"] as string).join("\n") })
    }).catch((e: { message: string; plan?: string }) => {
      if (e.plan === undefined) throw e
      return e.plan
    })
    expect(plan).not.toMatch(/Seq Scan on contacts|Bitmap Heap Scan on contacts|hashed SubPlan/)
    expect(plan).toMatch(/Tid Scan on contacts c/)
    expect(plan).toMatch(/Update on contacts c \(actual rows=3 /)
  }, 30_000)
})
