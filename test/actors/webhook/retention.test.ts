import { afterAll, describe, expect, it } from "@effect/vitest"
import { randomUUID } from "node:crypto"
import { purgeWebhookHistory } from "../../../actors/webhook/retention.ts"
import { createTenant, testSql } from "../../support/platform.ts"
import { insertSubscriptionRow } from "../../support/webhook.ts"

const sql = testSql()
afterAll(() => sql.end())

describe("webhook history retention", () => {
  it("removes emitted bodies and replays after 14 days and sequence counters idle for 30, keeping the rest", async () => {
    const tenant = await createTenant("whret")
    const id = randomUUID()
    await insertSubscriptionRow(sql, tenant.tenant_id, id)
    // Long ago: the sweep is global, and other test files' rows (written now) must stay out of its reach.
    const now = new Date("2020-06-30T12:00:00Z")
    const ago = (days: number) => new Date(now.getTime() - days * 86_400_000)
    for (const days of [20, 14.01, 13.99, 1]) {
      await sql`INSERT INTO webhook_events (subscription_id, event_id, tenant_id, sandbox, event_type, body, emitted_at)
        VALUES (${id}, ${`age-${days}`}, ${tenant.tenant_id}, false, 'contact.created', '{}', ${ago(days)})`
      await sql`INSERT INTO webhook_replays (id, subscription_id, tenant_id, sandbox, since, until, events, created_at)
        VALUES (gen_random_uuid(), ${id}, ${tenant.tenant_id}, false, ${ago(days + 1)}, ${ago(days)}, 0, ${ago(days)})`
    }
    for (const days of [31, 29]) {
      await sql`INSERT INTO webhook_sequences (tenant_id, sandbox, object_key, last_value, updated_at)
        VALUES (${tenant.tenant_id}, false, ${`contact:${days}`}, 1, ${ago(days)})`
    }
    const removed = await purgeWebhookHistory(sql, now)
    expect(removed.events).toBeGreaterThanOrEqual(2)
    expect((await sql`SELECT event_id FROM webhook_events WHERE subscription_id = ${id} ORDER BY emitted_at`).map((r) => r.event_id))
      .toEqual(["age-13.99", "age-1"])
    expect(await sql`SELECT 1 FROM webhook_replays WHERE subscription_id = ${id}`).toHaveLength(2)
    expect((await sql`SELECT object_key FROM webhook_sequences WHERE tenant_id = ${tenant.tenant_id}`).map((r) => r.object_key)).toEqual(["contact:29"])
  })
})
