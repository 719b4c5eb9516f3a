import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import postgres from "postgres"
import { inject } from "vitest"
import { claimBatch } from "../../../actors/message/delivery.ts"
import { recordSent } from "../../../actors/message/outcomes.ts"
import { makeSendBudget } from "../../../actors/message/sendBudget.ts"
import { actAsTenant } from "../../../core/db/Database.ts"
import { createTenant, testSql, type TestTenant } from "../../support/platform.ts"

// The deliverer's claim and record run for every batch of sends, on the largest table a broadcast grows. Their plans
// must not depend on the statistics (ADR 0032): on a messages table analysed at 2,000 rows and holding 30,000, every
// statement they send finds messages and contacts by primary key, never by a scan of the table or of another index,
// with generic and custom plans (a hash of the batch against rows found by key is bounded, and allowed). The
// statements are taken as sent (postgres.js's debug hook) and explained again.
let tenant: TestTenant
const sql = testSql()
const sent: Array<{ query: string; params: ReadonlyArray<unknown> }> = []
const capturing = postgres(inject("databaseUrl"), { max: 1, onnotice: () => {}, debug: (_c, query, params) => void sent.push({ query, params: params as ReadonlyArray<unknown> }) })

beforeAll(async () => {
  tenant = await createTenant("delivery-plans")
  await sql`INSERT INTO channel_email (tenant_id, sandbox, from_address) VALUES (${tenant.tenant_id}, false, 'plans@hotelexample.com')`
  const fill = (from: number, to: number) => sql`
    WITH c AS (
      INSERT INTO contacts (id, tenant_id, sandbox, email)
      SELECT gen_random_uuid(), ${tenant.tenant_id}, false, 'plans' || i || '@example.com' FROM generate_series(${from}::int, ${to}::int) AS i
      RETURNING id, email)
    INSERT INTO messages (id, tenant_id, sandbox, contact_id, channel, direction, category, origin, to_address, subject, body_text, status)
    SELECT gen_random_uuid(), ${tenant.tenant_id}, false, c.id, 'email', 'outbound', 'utility', 'api', c.email, 'Hello', 'Hi', 'queued' FROM c`
  await fill(1, 2_000)
  await sql`ANALYZE contacts`
  await sql`ANALYZE messages`
  await fill(2_001, 30_000)
}, 120_000)
afterAll(async () => {
  await capturing.end()
  await sql.end()
})

const explain = (query: string, params: ReadonlyArray<unknown>, mode: string) =>
  sql.begin(async (tx) => {
    await actAsTenant(tx, tenant.tenant_id)
    await tx.unsafe(`SET LOCAL plan_cache_mode = ${mode}`)
    const rows = await tx.unsafe(`EXPLAIN (COSTS OFF) ${query}`, params as never)
    return rows.map((r) => r["QUERY PLAN"] as string).join("\n")
  }) as Promise<string>

describe("the deliverer's statements", () => {
  it("claim and record a batch by primary key, whatever the statistics", async () => {
    const scope = { tenant_id: tenant.tenant_id, sandbox: false }
    const ids = (await sql<Array<{ id: string }>>`SELECT id FROM messages WHERE tenant_id = ${tenant.tenant_id} ORDER BY random() LIMIT 32`).map((r) => r.id)
    sent.length = 0
    await capturing.begin(async (tx) => {
      await actAsTenant(tx, tenant.tenant_id)
      const claims = await claimBatch(tx, scope, ids, {
        now: Date.now(), reconcileMs: 60_000, attemptDeadlineMs: 20_000, defaultRatePerMinute: 1_000_000, key: Buffer.alloc(32),
        budget: makeSendBudget(), hash: () => Buffer.alloc(32)
      })
      expect([...claims.values()].filter((c) => c.kind === "send")).toHaveLength(32)
      await recordSent(tx, scope, (_kind, name) => `tests.cmd.${name}`, ids.map((id) => ({ id, providerId: "" })), new Date().toISOString())
      throw new Error("rollback")
    }).catch((e: Error) => {
      if (e.message !== "rollback") throw e
    })
    const onMessages = sent.filter((s) => /\bmessages\b/.test(s.query) && !/^\s*(begin|commit|rollback)/i.test(s.query))
    expect(onMessages.length).toBeGreaterThanOrEqual(3)
    for (const mode of ["force_generic_plan", "force_custom_plan"]) {
      for (const s of onMessages) {
        const plan = await explain(s.query, s.params, mode)
        const why = `${mode}\n${s.query}\n${plan}`
        expect(plan, why).not.toMatch(/Seq Scan on (messages|contacts)|hashed SubPlan/)
        // By primary key only: an index scan of another index (a tenant-leading one) reads the tenant's every row.
        expect(plan, why).not.toMatch(/Index (Only )?Scan using (?!messages_pkey|contacts_pkey)\w+ on (messages|contacts)\b/)
        expect(plan, why).not.toMatch(/Bitmap Index Scan on (?!messages_pkey|contacts_pkey)\w+/)
      }
    }
  }, 60_000)
})
