import { describe, expect, it } from "@effect/vitest"
import { reportsOf } from "../../src/message/whatsappReports.ts"
import type { WhatsAppEnvelope } from "../../schemas/whatsappWebhook.ts"

const envelope = (value: Record<string, unknown>, field = "messages"): WhatsAppEnvelope => ({
  object: "whatsapp_business_account",
  entry: [{ id: "1", changes: [{ field, value: { messaging_product: "whatsapp", metadata: { phone_number_id: "555" }, ...value } as never }] }]
})

describe("what a WhatsApp webhook reports", () => {
  it("turns statuses into status reports with E.164 numbers, ISO times and the first error", () => {
    const r = reportsOf(envelope({
      statuses: [
        { id: "wamid.1", status: "failed", timestamp: "1760000000", recipient_id: "34600111222", biz_opaque_callback_data: "m-1",
          errors: [{ code: 131026, title: "Message undeliverable", error_data: { details: "not on WhatsApp" } }] },
        { id: "wamid.2", status: "deleted", timestamp: "1760000001", recipient_id: "34600111222" }
      ]
    }))
    expect(r.phoneNumberIds).toEqual(["555"])
    expect(r.items).toEqual([{
      phoneNumberId: "555",
      report: { kind: "status", phone: "+34600111222", provider_message_id: "wamid.1", callback_data: "m-1", status: "failed",
        occurred_at: "2025-10-09T08:53:20.000Z", error_code: "131026", error_message: "not on WhatsApp" }
    }])
    expect(r.ignored).toHaveLength(1)
  })

  it("turns guests' messages into inbound reports with their profile name; buttons count as text", () => {
    const r = reportsOf(envelope({
      contacts: [{ wa_id: "34600111222", profile: { name: "Lucía" } }],
      messages: [
        { from: "34600111222", id: "wamid.a", timestamp: "1760000000", type: "text", text: { body: "STOP" } },
        { from: "34600111222", id: "wamid.b", timestamp: "1760000005", type: "button", button: { text: "Sí", payload: "yes" } },
        { from: "12", id: "wamid.c", timestamp: "1760000005", type: "text", text: { body: "x" } }
      ]
    }))
    expect(r.items.map((i) => i.report)).toEqual([
      { kind: "inbound", phone: "+34600111222", provider_message_id: "wamid.a", occurred_at: "2025-10-09T08:53:20.000Z", type: "text", text: "STOP", profile_name: "Lucía" },
      { kind: "inbound", phone: "+34600111222", provider_message_id: "wamid.b", occurred_at: "2025-10-09T08:53:25.000Z", type: "button", text: "Sí", profile_name: "Lucía" }
    ])
    expect(r.ignored).toEqual(["message wamid.c from an invalid number"])
  })

  it("keeps a guest's text with NUL and unpaired surrogates cleaned (PostgreSQL cannot store them)", () => {
    const r = reportsOf(envelope({
      contacts: [{ wa_id: "34600111222", profile: { name: "Lu\u0000cía" } }],
      messages: [{ from: "34600111222", id: "wamid.n", timestamp: "1760000000", type: "text", text: { body: "Hola\u0000 \ud800!" } }]
    }))
    expect(r.items[0]!.report).toMatchObject({ text: "Hola \ufffd!", profile_name: "Lucía" })
  })

  it("ignores other fields (template status updates and the like)", () => {
    expect(reportsOf(envelope({}, "message_template_status_update")).items).toEqual([])
  })
})
