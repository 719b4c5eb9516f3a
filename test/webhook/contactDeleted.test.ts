import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { randomUUID } from "node:crypto"
import { withTenant } from "../../core/db/Database.ts"
import { webhookBodyProblem } from "../../schemas/webhookPayloads.ts"
import { contactDeletedEventId, writeContactDeleted } from "../../src/webhook/contactDeleted.ts"
import { makeCertificate, startReceiver, trustForThisProcess, type Receiver } from "../support/httpsReceiver.ts"
import { useEncryptionKey } from "../support/messaging.ts"
import { createTenant, startPlatform, testSql, type RunningPlatform, type TestTenant } from "../support/platform.ts"
import { eventually, expectVerifies, subscribe } from "../support/webhook.ts"

// An erasure's last word to partners (issue 26): one `contact.deleted` per erased contact, written as an outbox row in
// the runner's transaction, delivered signed to a real HTTPS receiver with the contact's id and nothing else, and
// never twice however often the step runs again.
process.env.GEP_WEBHOOKS_ALLOW_LOOPBACK = "1"
useEncryptionKey()

let platform: RunningPlatform
let receiver: Receiver
let tenant: TestTenant
let secret: string
const sql = testSql()

beforeAll(async () => {
  const cert = makeCertificate()
  trustForThisProcess(cert)
  receiver = await startReceiver(cert)
  platform = await startPlatform("contactdeleted")
  tenant = await createTenant("contactdeleted")
  secret = (await subscribe(platform.baseUrl, tenant.live_key, { url: receiver.url("/deleted"), event_types: ["contact.deleted"] })).secret
})
afterAll(async () => {
  await platform?.stop()
  await receiver?.close()
  await sql.end()
  delete process.env.GEP_WEBHOOKS_ALLOW_LOOPBACK
})

const scope = () => ({ tenant_id: tenant.tenant_id, sandbox: false })
const write = (contactIds: ReadonlyArray<string>, requestId: string) =>
  withTenant(sql, tenant.tenant_id, (tx) => writeContactDeleted(tx, platform.config.namespace, scope(), contactIds, requestId, new Date()))
const bodies = () => receiver.on("/deleted").map((r) => ({ r, body: JSON.parse(r.raw.toString("utf8")) }))

describe("contact.deleted", () => {
  it("reaches a subscription once per erased contact, signed, with the contact's id only, however often the step runs", async () => {
    const requestId = randomUUID()
    const contacts = [randomUUID(), randomUUID()]
    const first = await write([...contacts, contacts[0]!.toUpperCase()], requestId)
    expect(first.map((m) => m.id)).toEqual(contacts.map((c) => contactDeletedEventId(requestId, c)))
    // Run again before the relay published it (the row still waiting): nothing more written.
    expect(await write(contacts, requestId)).toEqual([])

    const delivered = await eventually("both contact.deleted events", async () => (bodies().length >= 2 ? bodies() : undefined), 20_000)
    for (const { r, body } of delivered) {
      expectVerifies(r, secret)
      expect(r.headers["x-webhook-event"]).toBe("contact.deleted")
      expect(webhookBodyProblem("contact.deleted", body)).toBeUndefined()
      expect(Object.keys(body.data)).toEqual(["contact"])
      expect(Object.keys(body.data.contact)).toEqual(["id"])
    }
    expect(delivered.map(({ body }) => body.data.contact.id).sort()).toEqual([...contacts].sort())
    expect(delivered.map(({ body }) => body.event_id).sort()).toEqual(contacts.map((c) => contactDeletedEventId(requestId, c)).sort())

    // Run again after it went out (the row gone, the event on record): still nothing more.
    await eventually("the events on record", async () => {
      const [row] = await sql`SELECT count(*)::int AS n FROM webhook_events WHERE event_id = ANY(${first.map((m) => m.id)})`
      return row!.n === 2 ? true : undefined
    })
    expect(await write(contacts, requestId)).toEqual([])
    // Another request erasing one of them again is another event.
    expect(await write([contacts[0]!], randomUUID())).toHaveLength(1)
    await eventually("the other request's event", async () => (bodies().length >= 3 ? true : undefined), 20_000)
    await new Promise((r) => setTimeout(r, 2_500))
    expect(bodies()).toHaveLength(3)
  })
})
