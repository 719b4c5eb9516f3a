import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { randomUUID } from "node:crypto"
import { senderBehind } from "../../../actors/broadcast/repository.ts"
import { actAsTenant } from "../../../core/db/Database.ts"
import { broadcastMessageId, insertBroadcast, insertRecipient } from "../../support/broadcasts.ts"
import { createTenant, testSql, type TestTenant } from "../../support/platform.ts"

// The send window of an unpaced broadcast's dispatch (actors/broadcast/lifecycle.ts SEND_WINDOW): whether the send
// handed over so many sends ago still waits at the sender.
let tenant: TestTenant
const sql = testSql()
const everyone = { version: 1, match: { field: "contact.source", op: "eq", value: "window" } } as const

beforeAll(async () => {
  tenant = await createTenant("broadcast-window")
})
afterAll(() => sql.end())

/** Ten contacts handed over in contact order; the messages the sender recorded, in the given states. */
const handedOver = async (states: ReadonlyArray<"none" | "queued" | "held" | "released" | "sent" | "skipped">) => {
  const b = await insertBroadcast(sql, tenant, { definition: everyone as never })
  const ids = states.map(() => randomUUID()).sort()
  for (const [i, id] of ids.entries()) {
    await sql`INSERT INTO contacts (id, tenant_id, sandbox, email) VALUES (${id}, ${tenant.tenant_id}, false, ${`w${i}.${id}@example.com`})`
    await insertRecipient(sql, tenant, b, id, null)
    const state = states[i]!
    if (state === "none") continue
    const notBefore = state === "held" ? new Date(Date.now() + 3_600_000) : state === "released" ? new Date(Date.now() - 1_000) : null
    await sql`INSERT INTO messages (id, tenant_id, sandbox, contact_id, channel, direction, category, origin, status, skip_reason, broadcast_id, not_before)
      VALUES (${broadcastMessageId(b, id)}, ${tenant.tenant_id}, false, ${id}, 'email', 'outbound', 'marketing', 'broadcast',
        ${state === "held" || state === "released" ? "queued" : state}, ${state === "skipped" ? "no_email_marketing_consent" : null}, ${b}, ${notBefore})`
  }
  return b
}

const behind = (b: string, depth: number) => sql.begin(async (tx) => {
  await actAsTenant(tx, tenant.tenant_id)
  return senderBehind(tx, b, depth)
}) as Promise<boolean>

describe("whether the sender is behind a broadcast's dispatch", () => {
  it("asks of the send handed over `depth` sends ago: waiting when not yet recorded or still queued, not when answered", async () => {
    const b = await handedOver(["queued", "queued", "queued", "sent", "sent", "sent", "none", "queued", "sent", "none"])
    const answers = await Promise.all(Array.from({ length: 11 }, (_, depth) => behind(b, depth)))
    expect(answers).toEqual([true, false, true, true, false, false, false, true, true, true, false])
  })

  it("does not count a send held by quiet hours until its hold ends, nor a skipped one", async () => {
    const b = await handedOver(["skipped", "held", "released"])
    expect(await Promise.all([0, 1, 2].map((depth) => behind(b, depth)))).toEqual([true, false, false])
  })
})
