import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { phone } from "../support/fixtures.ts"
import { createTenant, startPlatform, testSql, type RunningPlatform, type TestTenant } from "../support/platform.ts"
import { eventually } from "../support/webhook.ts"
import { contactReads } from "./support.ts"

// The webhooks emitted about a contact on its timeline (kind `webhook`, one item per subscription), in a tenant of its
// own: the other timeline files need tenants without subscriptions (a contact with no history has an empty timeline).

// The subscriptions point at loopback, where nothing listens: what is emitted is recorded whether or not it arrives.
process.env.GEP_WEBHOOKS_ALLOW_LOOPBACK = "1"

let platform: RunningPlatform
let tenant: TestTenant
const sql = testSql()

beforeAll(async () => {
  platform = await startPlatform("timelinewh")
  tenant = await createTenant("timelinewh")
})
afterAll(async () => {
  delete process.env.GEP_WEBHOOKS_ALLOW_LOOPBACK
  await platform?.stop()
  await sql.end()
})

const { api, timeline } = contactReads(() => platform, () => tenant)

describe("GET /api/v1/contacts/{contact_id}/timeline: webhooks", () => {
  it("lists each webhook emitted about the contact, once per subscription, with its event_id and sequence", async () => {
    const subscriptions = await Promise.all([1, 2].map((n) =>
      api("POST", "/api/v1/webhooks", { url: `https://127.0.0.1:1/hook-${n}`, event_types: ["contact.created", "contact.updated"] })))
    const guest = await api("POST", "/api/v1/guests", { phone: phone(Math.floor(Math.random() * 80_000_000)), first_name: "Web", last_name: "Hook" })
    const items = await eventually("the contact's two webhook items", async () => {
      const webhooks = (await timeline(guest.contact_id)).items.filter((i) => i.kind === "webhook")
      return webhooks.length === 2 ? webhooks : undefined
    })
    expect(new Set(items.map((i) => i.data.subscription_id))).toEqual(new Set(subscriptions.map((s) => s.id)))
    for (const item of items) {
      expect(item).toMatchObject({ summary: "Webhook contact.created emitted", data: { event_type: "contact.created" } })
      expect(item.id).toBe(`${item.data.event_id}:${item.data.subscription_id}`)
      expect(item.data.sequence).toBeGreaterThan(0)
      const [row] = await sql`SELECT body FROM webhook_events WHERE event_id = ${item.data.event_id} AND subscription_id = ${item.data.subscription_id}`
      expect(JSON.parse(row!.body as string)).toMatchObject({ event_id: item.data.event_id, sequence: item.data.sequence })
    }
    // Another contact's timeline holds none of them.
    const other = await api("POST", "/api/v1/guests", { phone: phone(Math.floor(Math.random() * 80_000_000)), first_name: "Other", last_name: "One" })
    await eventually("the other contact's webhook items", async () => ((await timeline(other.contact_id)).items.some((i) => i.kind === "webhook") ? true : undefined))
    const otherItems = (await timeline(other.contact_id)).items.filter((i) => i.kind === "webhook")
    expect(otherItems.every((i) => !items.some((mine) => mine.id === i.id))).toBe(true)
  })
})
