import { describe, expect, it } from "@effect/vitest"
import { WebhookEventTypes } from "../../schemas/webhook.ts"
import { NotYetEmitted, WebhookPayloads, webhookBodyProblem } from "../../schemas/webhookPayloads.ts"

describe("the webhook payload registry", () => {
  it("has a body schema for every event type a subscription can ask for, or lists it as not emitted yet", () => {
    const missing = WebhookEventTypes.filter((t) => !WebhookPayloads.has(t) && !NotYetEmitted.includes(t))
    expect(missing, `add these event types' bodies to schemas/webhookPayloads.ts: ${missing.join(", ")}`).toEqual([])
    const both = NotYetEmitted.filter((t) => WebhookPayloads.has(t))
    expect(both, `emitted now: remove from NotYetEmitted: ${both.join(", ")}`).toEqual([])
    const unknown = [...WebhookPayloads.keys()].filter((t) => !(WebhookEventTypes as ReadonlyArray<string>).includes(t) && t !== "webhook.test")
    expect(unknown).toEqual([])
  })

  it("names what is off in a body, and takes one that fits", () => {
    const body = {
      event_id: "e1", event_type: "contact.created", sequence: 3, timestamp: "2026-11-27T10:00:00.000Z",
      data: { contact: { id: "c1", phone: "+34600000001", email: null, first_name: "Ana", last_name: null, hotel_id: null } }
    }
    expect(webhookBodyProblem("contact.created", body)).toBeUndefined()
    expect(webhookBodyProblem("contact.created", { ...body, data: { contact: { ...body.data.contact, phone: 34 } } })).toContain("phone")
    expect(webhookBodyProblem("contact.ignited", body)).toBe("no payload schema for contact.ignited")
    // An erased contact's event carries its id and nothing else of it.
    const deleted = { ...body, event_type: "contact.deleted", data: { contact: { id: "c1" } } }
    expect(webhookBodyProblem("contact.deleted", deleted)).toBeUndefined()
    expect(webhookBodyProblem("contact.deleted", { ...deleted, data: { contact: {} } })).toContain("id")
  })
})
