import { afterAll, describe, expect, it } from "@effect/vitest"
import { randomUUID } from "node:crypto"
import { purgeDeliveryLog } from "../../../actors/webhook/deliveryLog.ts"
import { createTenant, testSql } from "../../support/platform.ts"
import { insertSubscriptionRow } from "../../support/webhook.ts"

const sql = testSql()
afterAll(() => sql.end())

describe("delivery log retention", () => {
  it("purges attempts older than 14 days and keeps the rest", async () => {
    const tenant = await createTenant("purge")
    const id = randomUUID()
    await insertSubscriptionRow(sql, tenant.tenant_id, id)
    // Long ago: the purge is global, and other test files' rows (written now) must stay out of its reach.
    const now = new Date("2020-06-30T12:00:00Z")
    const ages = [20, 14.01, 13.99, 1]
    for (const days of ages) {
      await sql`INSERT INTO webhook_deliveries (id, subscription_id, tenant_id, sandbox, event_id, event_type, attempt, outcome, duration_ms, attempted_at)
        VALUES (gen_random_uuid(), ${id}, ${tenant.tenant_id}, false, ${`age-${days}`}, 'contact.created', 1, 'succeeded', 1,
          ${new Date(now.getTime() - days * 86_400_000)})`
    }
    expect(await purgeDeliveryLog(sql, now)).toBeGreaterThanOrEqual(2)
    const left = await sql`SELECT event_id FROM webhook_deliveries WHERE subscription_id = ${id} ORDER BY attempted_at`
    expect(left.map((r) => r.event_id)).toEqual(["age-13.99", "age-1"])
  })
})
