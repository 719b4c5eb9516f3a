import { afterAll, afterEach, beforeAll, describe, expect, it } from "@effect/vitest"
import { createJourney, runIn, stepsOf } from "../support/journeys.ts"
import { configureChannels, newContact, newWhatsAppNumber, TEMPLATES, useEncryptionKey } from "../support/messaging.ts"
import { createTenant, post, request, startPlatform, testSql, type RunningPlatform, type TestTenant } from "../support/platform.ts"
import { eventually as within } from "../support/webhook.ts"
import { startWhatsAppStub, type WhatsAppStub } from "../support/whatsappStub.ts"

// WhatsApp steps through the real send path to the Cloud API stub: parameters from variable paths, consent gating,
// and the skip when a path has no value.
const key = useEncryptionKey()
const number = newWhatsAppNumber()
let stub: WhatsAppStub
let platform: RunningPlatform
let tenant: TestTenant
const sql = testSql()
// Generous: the suite runs many platforms at once on two cores.
const soon = <A>(what: string, f: () => Promise<A | undefined>) => within(what, f, 90_000)
let n = 0

beforeAll(async () => {
  stub = await startWhatsAppStub({
    numbers: [{ ...number, templates: TEMPLATES.map((t) => ({ name: t.name, language: t.language, bodyParameters: t.bodyParameters, category: t.category })) }]
  })
  process.env.GEP_WHATSAPP_API_URL = stub.baseUrl
  process.env.GEP_JOURNEY_TIMER_MS = "200"
  platform = await startPlatform("journeys_wa")
  stub.setWebhookUrl(`${platform.baseUrl}/api/webhooks/whatsapp`)
  tenant = await createTenant("journeys-wa")
  await configureChannels(sql, key, tenant, { whatsapp: number })
})
afterEach(async () => {
  await sql`UPDATE journey_definitions SET status = 'archived' WHERE tenant_id = ${tenant.tenant_id}`
})
afterAll(async () => {
  await stub?.close()
  await platform?.stop()
  await sql.end()
})

const event = (body: Record<string, unknown>) => post(platform.baseUrl, "/api/v1/events", tenant.live_key, body)
const callsTo = (phone: string) => stub.calls.filter((c) => c.answeredStatus === 200 && c.body?.to === phone.replace(/^\+/, ""))

describe("WhatsApp journey steps", () => {
  it("sends a template with parameters from the event and the contact, once", async () => {
    const journeyId = await createJourney(sql, tenant, {
      name: `Confirm ${++n}`, trigger: { type: "event", event: "payment.received" },
      steps: [{ id: "wa", type: "whatsapp", category: "utility", template: "booking_confirmation", language: "es",
        params: ["contact.first_name", "event.payload.context.check_in"] }]
    })
    const c = await newContact(platform.baseUrl, tenant)
    await event({ event_type: "payment.received", contact_id: c.id, payload: { context: { check_in: "2027-02-03" } } })
    const run = await runIn(sql, journeyId, c.id, ["completed"])
    const [call] = await soon("the template call", async () => (callsTo(c.phone).length > 0 ? callsTo(c.phone) : undefined))
    expect(call!.body.template).toMatchObject({ name: "booking_confirmation", language: { code: "es" } })
    expect(call!.body.template.components[0].parameters.map((p: any) => p.text)).toEqual(["Ana", "2027-02-03"])
    const [step] = await stepsOf(sql, run.id)
    expect(call!.body.biz_opaque_callback_data).toBe(step!.message_id)
    expect(stub.countByCallbackData().get(step!.message_id!)).toBe(1)
    // The run inspector shows the event's payload and each parameter path's value as sent.
    const view = (await request(platform.baseUrl, "GET", `/api/v1/journey-runs/${run.id}`, { key: tenant.live_key })).body.data
    expect(view.trigger.payload).toEqual({ context: { check_in: "2027-02-03" } })
    expect(view.steps[0].merge_values).toEqual({ "contact.first_name": "Ana", "event.payload.context.check_in": "2027-02-03" })
  })

  it("a path without a value skips the step (never an empty parameter); a marketing step needs marketing consent", async () => {
    const journeyId = await createJourney(sql, tenant, {
      name: `Gated ${++n}`, trigger: { type: "event", event: "review.requested" },
      steps: [
        { id: "missing", type: "whatsapp", category: "utility", template: "booking_confirmation", language: "es", params: ["contact.first_name", "event.payload.context.check_in"] },
        { id: "gated", type: "whatsapp", category: "marketing", template: "booking_confirmation", language: "es", params: ["contact.first_name", "contact.last_name"] }
      ]
    })
    const c = await newContact(platform.baseUrl, tenant, { whatsapp_marketing_consent: false })
    await event({ event_type: "review.requested", contact_id: c.id, payload: {} })
    const run = await runIn(sql, journeyId, c.id, ["completed"])
    const steps = await soon("the gated message recorded", async () => {
      const s = await stepsOf(sql, run.id)
      return s[1]?.status ? s : undefined
    })
    expect(steps.map((s) => [s.step_id, s.outcome, s.reason ?? s.skip_reason, s.status])).toEqual([
      ["missing", "skipped", "missing_template_parameter", null],
      ["gated", "sent", "no_whatsapp_marketing_consent", "skipped"]
    ])
    expect(callsTo(c.phone)).toHaveLength(0)
    // A skipped step shows which path had no value.
    const view = (await request(platform.baseUrl, "GET", `/api/v1/journey-runs/${run.id}`, { key: tenant.live_key })).body.data
    expect(view.steps[0].merge_values).toEqual({ "contact.first_name": "Ana", "event.payload.context.check_in": null })
  })

  it("a template no longer registered fails the run with its reason", async () => {
    const journeyId = await createJourney(sql, tenant, {
      name: `Removed ${++n}`, trigger: { type: "event", event: "guest.message" },
      steps: [{ id: "wa", type: "whatsapp", category: "utility", template: "gone_template", language: "es", params: [] }]
    })
    const c = await newContact(platform.baseUrl, tenant)
    await event({ event_type: "guest.message", contact_id: c.id, payload: {} })
    const run = await runIn(sql, journeyId, c.id, ["failed"])
    expect(run.error).toMatchObject({ code: "template_not_registered", step_id: "wa" })
  })
})
