import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { configureChannels, newContact, newWhatsAppNumber, TEMPLATES, useEncryptionKey } from "../support/messaging.ts"
import { outboxMessages } from "../support/outbox.ts"
import { createTenant, startPlatform, testSql, type RunningPlatform, type TestTenant } from "../support/platform.ts"
import { eventually } from "../support/webhook.ts"
import { startWhatsAppStub, type WhatsAppStub } from "../support/whatsappStub.ts"

// A conversation closes after its idle time (24 h in production; 1.5 s here) and the next message opens a new one.
const key = useEncryptionKey()
const number = newWhatsAppNumber()
let stub: WhatsAppStub
let platform: RunningPlatform
let tenant: TestTenant
const sql = testSql()

beforeAll(async () => {
  stub = await startWhatsAppStub({ numbers: [{ ...number, templates: TEMPLATES.map((t) => ({ name: t.name, language: t.language, bodyParameters: t.bodyParameters })) }] })
  process.env.GEP_WHATSAPP_API_URL = stub.baseUrl
  process.env.GEP_CONVERSATION_IDLE_MS = "1500"
  process.env.GEP_CONVERSATION_SWEEP_MS = "250"
  platform = await startPlatform("conversations")
  stub.setWebhookUrl(`${platform.baseUrl}/api/webhooks/whatsapp`)
  tenant = await createTenant("conv")
  await configureChannels(sql, key, tenant, { whatsapp: number })
})
afterAll(async () => {
  await stub?.close()
  await platform?.stop()
  await sql.end()
  delete process.env.GEP_CONVERSATION_IDLE_MS
  delete process.env.GEP_CONVERSATION_SWEEP_MS
})

describe("conversations", () => {
  it("close after their idle time, announced once; the guest's next message opens a new one", async () => {
    const c = await newContact(platform.baseUrl, tenant)
    expect(await stub.postInbound({ phoneNumberId: number.phoneNumberId, from: c.phone, text: "Hola" })).toBe(200)
    const [first] = await eventually("conversation", async () => {
      const rows = await sql`SELECT id, status FROM conversations WHERE contact_id = ${c.id}`
      return rows.length > 0 ? rows : undefined
    })
    const closed = await eventually("closed for inactivity", async () => {
      const [row] = await sql`SELECT status, closed_reason FROM conversations WHERE id = ${first!.id} AND status = 'closed'`
      return row
    }, 8_000)
    expect(closed.closed_reason).toBe("inactivity")
    const announced = (await outboxMessages(platform.config.namespace, tenant.tenant_id)).filter((m) => m.subject.endsWith("webhook.conversation.closed"))
    expect(announced.length).toBe(1)
    expect(await stub.postInbound({ phoneNumberId: number.phoneNumberId, from: c.phone, text: "¿Sigue ahí?" })).toBe(200)
    const rows = await eventually("a second conversation", async () => {
      const r = await sql`SELECT id, status FROM conversations WHERE contact_id = ${c.id} ORDER BY opened_at`
      return r.length === 2 ? r : undefined
    })
    expect(rows.map((r) => r.status)).toEqual(["closed", "open"])
  })
})
