import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { configureChannels, newContact, newWhatsAppNumber, TEMPLATES, useEncryptionKey } from "../support/messaging.ts"
import { createTenant, startPlatform, testSql, type RunningPlatform, type TestTenant } from "../support/platform.ts"
import { startWhatsAppStub, type WhatsAppStub } from "../support/whatsappStub.ts"
import { api } from "./support.ts"

// A WhatsApp broadcast through the stub of the Cloud API (its wire shapes): the template and its parameters rendered
// per recipient, marketing consent asked of each, delivery statuses completing the statistics.

const key = useEncryptionKey()
const number = newWhatsAppNumber()
const sql = testSql()
let stub: WhatsAppStub
let platform: RunningPlatform
let tenant: TestTenant

beforeAll(async () => {
  stub = await startWhatsAppStub({
    numbers: [{ ...number, templates: TEMPLATES.map((t) => ({ name: t.name, language: t.language, bodyParameters: t.bodyParameters })) }],
    autoStatuses: ["sent", "delivered"]
  })
  process.env.GEP_WHATSAPP_API_URL = stub.baseUrl
  process.env.GEP_BROADCAST_SWEEP_MS = "100"
  platform = await startPlatform("broadcastwa")
  stub.setWebhookUrl(`${platform.baseUrl}/api/webhooks/whatsapp`)
  tenant = await createTenant("broadcastwa")
  await configureChannels(sql, key, tenant, { whatsapp: number })
}, 60_000)
afterAll(async () => {
  await stub?.close()
  await platform?.stop()
  await sql.end()
  delete process.env.GEP_BROADCAST_SWEEP_MS
})

describe("a WhatsApp broadcast", () => {
  it("sends the template to each consenting recipient with its parameters, skips the rest, and completes on delivery", async () => {
    const tag = `wa-${Date.now()}`
    const yes = [await newContact(platform.baseUrl, tenant, { whatsapp_marketing_consent: true }), await newContact(platform.baseUrl, tenant, { whatsapp_marketing_consent: true })]
    const no = await newContact(platform.baseUrl, tenant, { whatsapp_marketing_consent: false })
    await sql`UPDATE contacts SET tags = array_append(tags, ${tag}) WHERE id = ANY(${[...yes, no].map((c) => c.id)}::uuid[])`
    const b = api(platform.baseUrl, tenant)
    const unregistered = await b.create({
      name: "Wrong template", channel: "whatsapp", category: "marketing",
      audience: { definition: { version: 1, match: { field: "contact.tags", op: "contains_any", value: [tag] } } },
      content: { template: "no_such_template", language: "es", params: ["contact.first_name"] }
    })
    const refused = await b.act(unregistered, "send")
    expect(refused.status).toBe(422)
    expect(refused.body.error.code).toBe("TEMPLATE_UNKNOWN")

    const id = await b.create({
      name: "Spring", channel: "whatsapp", category: "marketing",
      audience: { definition: { version: 1, match: { field: "contact.tags", op: "contains_any", value: [tag] } } },
      content: { template: "spring_offer", language: "es", params: ["contact.first_name"] }
    })
    expect((await b.act(id, "send")).status).toBe(200)
    const done = await b.until(id, "completed", (x) => x.status === "sent" && x.completed_at !== null, 90_000)
    expect(done.counts).toMatchObject({ targeted: 3, delivered: 2, skipped: 1, skipped_by_reason: { no_consent: 1 } })
    const sends = stub.calls.filter((c) => c.body?.template?.name === "spring_offer")
    expect(sends.map((c) => c.body.to).sort()).toEqual(yes.map((c) => c.phone.replace(/^\+/, "")).sort())
    expect(sends[0]!.body.template.components[0].parameters).toEqual([{ type: "text", text: "Ana" }])
  }, 60_000)
})
