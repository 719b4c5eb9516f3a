import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { randomUUID } from "node:crypto"
import postgres from "postgres"
import { inject } from "vitest"
import { claimBatch } from "../../../actors/message/delivery.ts"
import { recordSent } from "../../../actors/message/outcomes.ts"
import { makeSendBudget } from "../../../actors/message/sendBudget.ts"
import { findMessages, insertMessages, loadRecipients, suppressionsOf, touchConversations } from "../../../actors/message/sendStatements.ts"
import * as Actor from "../../../actors/runtime/Actor.ts"
import { actAsTenant, type Tx } from "../../../core/db/Database.ts"
import { createTenant, testSql, type TestTenant } from "../../support/platform.ts"

// The sender's wave statements and the deliverer's claim and record run for every batch of sends, on the largest
// table a broadcast grows. Their plans must not depend on the statistics (ADR 0032): on a messages table analysed at
// 2,000 rows and holding 30,000, every statement they send finds messages and contacts by primary key, never by a scan
// of the table or of another index, with generic and custom plans (a hash of the batch against rows found by key is
// bounded, and allowed). The statements are taken as sent (postgres.js's debug hook) and explained again.
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

/** Explains every captured statement on messages or contacts both ways and holds each to primary-key lookups. */
const expectByPrimaryKey = async () => {
  const onMessages = sent.filter((s) => /\b(messages|contacts)\b/.test(s.query) && !/^\s*(begin|commit|rollback)/i.test(s.query))
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
}

/** Runs the body in a transaction of the tenant that is rolled back at the end. */
const rolledBack = (body: (tx: Tx) => Promise<unknown>) =>
  capturing.begin(async (tx) => {
    await actAsTenant(tx, tenant.tenant_id)
    await body(tx)
    throw new Error("rollback")
  }).catch((e: Error) => {
    if (e.message !== "rollback") throw e
  })

describe("the sender's wave statements", () => {
  it("find, check and record a wave of sends by primary key, whatever the statistics", async () => {
    const scope = { tenant_id: tenant.tenant_id, sandbox: false }
    const rows = await sql<Array<{ id: string; contact_id: string; email: string }>>`
      SELECT m.id, m.contact_id, c.email FROM messages m JOIN contacts c ON c.id = m.contact_id
      WHERE m.tenant_id = ${tenant.tenant_id} ORDER BY random() LIMIT 32`
    sent.length = 0
    await rolledBack((tx) => {
      const group = { tx, scope, subject: (_k: string, name: string) => `tests.cmd.${name}`, target: { namespace: "tests", partitions: 1 } }
      const now = new Date().toISOString()
      const send = (r: typeof rows[number]) => Effect.all([
        findMessages(r.id),
        loadRecipients(r.contact_id),
        suppressionsOf({ channel: "email", address: r.email, hashes: [Buffer.alloc(32, 1)] }),
        touchConversations({ contact_id: r.contact_id, channel: "email", new_id: randomUUID(), at: now, namespace: "tests" }),
        insertMessages({
          id: randomUUID(), contact_id: r.contact_id, conversation_id: null, channel: "email", direction: "outbound", category: "utility",
          origin: "api", hotel_id: null, to_address: r.email, from_address: null, template_name: null, template_language: null,
          template_parameters: null, subject: "Hello", body_text: "Hi", body_html: null, status: "queued", skip_reason: null,
          provider_message_id: null, journey_run_id: null, step_id: null, broadcast_id: null, not_before: null, hold_namespace: null,
          created_at: now
        })
      ], { concurrency: "unbounded" })
      return Effect.runPromise(
        Effect.forEach(rows, send, { concurrency: "unbounded" }).pipe(Effect.provideService(Actor.GroupTransaction, group))
      ).then((answers) => {
        expect(answers.map(([found, contact]) => [found?.id, contact?.id])).toEqual(rows.map((r) => [r.id, r.contact_id]))
        expect(answers.every(([, , suppression, conversation, inserted]) => suppression === null && conversation.is_new && inserted !== undefined)).toBe(true)
      })
    })
    // One statement per step for the wave, not one per send.
    expect(sent.filter((s) => /FROM messages WHERE id = ANY/.test(s.query))).toHaveLength(1)
    expect(sent.filter((s) => /INSERT INTO messages/.test(s.query))).toHaveLength(1)
    await expectByPrimaryKey()
  }, 60_000)
})

describe("the deliverer's statements", () => {
  it("claim and record a batch by primary key, whatever the statistics", async () => {
    const scope = { tenant_id: tenant.tenant_id, sandbox: false }
    const ids = (await sql<Array<{ id: string }>>`SELECT id FROM messages WHERE tenant_id = ${tenant.tenant_id} ORDER BY random() LIMIT 32`).map((r) => r.id)
    sent.length = 0
    await rolledBack(async (tx) => {
      const claims = await claimBatch(tx, scope, ids, {
        now: Date.now(), reconcileMs: 60_000, attemptDeadlineMs: 20_000, defaultRatePerMinute: 1_000_000, key: Buffer.alloc(32),
        budget: makeSendBudget(), hash: () => Buffer.alloc(32)
      })
      expect([...claims.values()].filter((c) => c.kind === "send")).toHaveLength(32)
      await recordSent(tx, scope, (_kind, name) => `tests.cmd.${name}`, ids.map((id) => ({ id, providerId: "" })), new Date().toISOString())
    })
    await expectByPrimaryKey()
  }, 60_000)
})
