import { afterAll, describe, expect, it } from "@effect/vitest"
import { randomUUID } from "node:crypto"
import { WebhookEventTypes } from "../../../schemas/webhook.ts"
import { ObjectKeys, objectKeyOf, WebhookTestEvent } from "../../../core/webhook/objectKey.ts"
import { assignSequences, purgeIdleSequences } from "../../../core/webhook/sequence.ts"
import { createTenant, testSql } from "../../support/platform.ts"
import { insertSubscriptionRow } from "../../support/webhook.ts"

const sql = testSql()
afterAll(() => sql.end())

const contactEvent = (tenant: string, contactId: string, type = "contact.updated", sandbox = false) =>
  ({ tenant_id: tenant, sandbox, event_type: type, data: { contact: { id: contactId } } })

describe("webhook object keys", () => {
  it("has a key for every event type, and only for them", () => {
    expect(Object.keys(ObjectKeys).sort()).toEqual([...WebhookEventTypes, WebhookTestEvent].sort())
  })

  it("keys each event by the object its data is about", () => {
    expect(objectKeyOf("contact.created", { contact: { id: "c1" } })).toBe("contact:c1")
    expect(objectKeyOf("message.read", { message: { id: "m1" }, contact: { id: "c1" } })).toBe("message:m1")
    expect(objectKeyOf("conversation.closed", { conversation: { id: "v1" } })).toBe("conversation:v1")
    expect(objectKeyOf("journey.completed", { run: { id: "r1" }, journey: { id: "j1" } })).toBe("journey_run:r1")
    expect(objectKeyOf("reservation.checked_in", { reservation: { id: "b1" } })).toBe("reservation:b1")
    expect(objectKeyOf("reservation.attribution_changed", { reservation: { id: "b1" } })).toBe("reservation:b1")
    expect(objectKeyOf("loyalty.member.enrolled", { member: { member_id: "l1" } })).toBe("loyalty_member:l1")
    expect(objectKeyOf("loyalty.points.earned", { member_id: "l1" })).toBe("loyalty_member:l1")
    expect(objectKeyOf("webhook.test", { subscription_id: "s1" })).toBe("webhook_subscription:s1")
    // Data without its object's id still gets a key (ordered with the others of its type).
    expect(objectKeyOf("contact.updated", {})).toBe("type:contact.updated")
  })
})

describe("webhook sequences", () => {
  const assign = (events: Parameters<typeof assignSequences>[1]) => sql.begin((tx) => assignSequences(tx, events))
  /** A tenant with a live and a sandbox subscription: only those get counted sequences. */
  const listeningTenant = async () => {
    const { tenant_id } = await createTenant("whseq")
    await insertSubscriptionRow(sql, tenant_id, randomUUID())
    await insertSubscriptionRow(sql, tenant_id, randomUUID(), true)
    return tenant_id
  }

  it("increase per object key, in order within one call, independently per object, tenant and mode", async () => {
    const tenant = await listeningTenant()
    const [a1, a2, b1, a3] = await assign([contactEvent(tenant, "a"), contactEvent(tenant, "a"), contactEvent(tenant, "b"), contactEvent(tenant, "a")])
    // One call's events of one object take consecutive numbers; the next call continues above them.
    expect([a2! - a1!, a3! - a2!]).toEqual([1, 1])
    const [a4] = await assign([contactEvent(tenant, "a")])
    expect(a4).toBeGreaterThan(a3!)
    expect(Number.isSafeInteger(a4)).toBe(true)
    const rows = await sql`SELECT object_key, sandbox, last_value::text AS last FROM webhook_sequences WHERE tenant_id = ${tenant} ORDER BY object_key`
    expect(rows.map((r) => [r.object_key, r.last])).toEqual([["contact:a", String(a4)], ["contact:b", String(b1)]])
    // The other mode and another tenant have counters of their own.
    const other = await listeningTenant()
    await assign([contactEvent(tenant, "a", "contact.updated", true), contactEvent(other, "a")])
    expect((await sql`SELECT count(*)::int AS n FROM webhook_sequences WHERE tenant_id = ${tenant}`)[0]!.n).toBe(3)
    expect((await sql`SELECT count(*)::int AS n FROM webhook_sequences WHERE tenant_id = ${other}`)[0]!.n).toBe(1)
  })

  it("are 0, with no counter row, for an account and mode without any subscription", async () => {
    const { tenant_id } = await createTenant("whseq-none")
    const listening = await listeningTenant()
    const [none, counted] = await assign([contactEvent(tenant_id, "z"), contactEvent(listening, "z")])
    expect(none).toBe(0)
    expect(counted).toBeGreaterThan(0)
    expect(await sql`SELECT 1 FROM webhook_sequences WHERE tenant_id = ${tenant_id}`).toHaveLength(0)
  })

  it("follow commit order: a second transaction on the same object waits for the first and continues above it", async () => {
    const tenant = await listeningTenant()
    let release!: () => void
    const held = new Promise<void>((r) => (release = r))
    let firstValue = 0
    const first = sql.begin(async (tx) => {
      ;[firstValue] = await assignSequences(tx, [contactEvent(tenant, "x")]) as [number]
      await held
    })
    await new Promise((r) => setTimeout(r, 100))
    const second = assign([contactEvent(tenant, "x")])
    await new Promise((r) => setTimeout(r, 200))
    release()
    await first
    const [secondValue] = await second
    expect(secondValue).toBeGreaterThan(firstValue)
  })

  it("give back the numbers of a rolled-back transaction, and restart above every number given after a sweep", async () => {
    const tenant = await listeningTenant()
    const [kept] = await assign([contactEvent(tenant, "y")])
    await sql.begin(async (tx) => {
      await assignSequences(tx, [contactEvent(tenant, "y")])
      throw new Error("rolled back")
    }).catch(() => undefined)
    expect((await sql`SELECT last_value::text AS v FROM webhook_sequences WHERE tenant_id = ${tenant}`)[0]!.v).toBe(String(kept))
    const [next] = await assign([contactEvent(tenant, "y")])
    expect(next).toBeGreaterThan(kept!)
    // The sweep removes idle counters in bounded batches; a later event still gets a higher number.
    await sql`UPDATE webhook_sequences SET updated_at = now() - interval '31 days' WHERE tenant_id = ${tenant}`
    await sql.begin((tx) => purgeIdleSequences(tx, new Date(Date.now() - 30 * 86_400_000), 10))
    expect(await sql`SELECT 1 FROM webhook_sequences WHERE tenant_id = ${tenant}`).toHaveLength(0)
    const [after] = await assign([contactEvent(tenant, "y")])
    expect(after).toBeGreaterThan(next!)
  })
})
