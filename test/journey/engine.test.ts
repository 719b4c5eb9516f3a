import { afterAll, afterEach, beforeAll, describe, expect, it } from "@effect/vitest"
import { runJourneyDateScan } from "../../actors/journey/dateTrigger.ts"
import { makeCertificate, startReceiver, trustForThisProcess, type Receiver } from "../support/httpsReceiver.ts"
import { createJourney, runIn, runsOf, setJourneyStatus, stepsOf } from "../support/journeys.ts"
import { type MailingPlatform, newContact, startMailingPlatform, useEncryptionKey } from "../support/messaging.ts"
import { post, request, testSql, type RunningPlatform, type TestTenant } from "../support/platform.ts"
import type { SmtpSink } from "../support/smtpSink.ts"
import { eventually as within, expectVerifies, subscribe } from "../support/webhook.ts"

// Journeys end to end: real events and reservations in, the real router, actor, timer sweep and message path, a real
// SMTP server catching what leaves, and a real HTTPS receiver for the journey webhooks.
const key = useEncryptionKey()
let mailing: MailingPlatform
let sink: SmtpSink
let receiver: Receiver
let platform: RunningPlatform
let tenant: TestTenant
let secret: string
const sql = testSql()
// Generous: the suite runs many platforms at once on two cores.
const soon = <A>(what: string, f: () => Promise<A | undefined>) => within(what, f, 90_000)
let n = 0

beforeAll(async () => {
  const cert = makeCertificate()
  trustForThisProcess(cert)
  receiver = await startReceiver(cert)
  mailing = await startMailingPlatform(sql, key, "journeys", { GEP_WEBHOOKS_ALLOW_LOOPBACK: "1", GEP_JOURNEY_TIMER_MS: "200" })
  ;({ sink, platform, tenant } = mailing)
  secret = (await subscribe(platform.baseUrl, tenant.live_key, { url: receiver.url("/events"), event_types: ["journey.started", "journey.completed", "journey.failed"] })).secret
})
// Each test's journeys end with it, so later tests' events start only their own.
afterEach(async () => {
  await sql`UPDATE journey_definitions SET status = 'archived' WHERE tenant_id = ${tenant.tenant_id}`
})
afterAll(async () => {
  await mailing?.stop()
  await receiver?.close()
  await sql.end()
})

const event = (body: Record<string, unknown>) => post(platform.baseUrl, "/api/v1/events", tenant.live_key, body)
const mailsTo = (address: string) => sink.mails.filter((m) => m.to.includes(address))
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
const unique = (label: string) => `${label}-${Date.now()}-${++n}`

const reservationBody = (email: string, o: Record<string, unknown> = {}) => ({
  reservation_id: unique("PMS"), hotel_code: tenant.hotel_code, check_in: "2027-03-01", check_out: "2027-03-04", status: "confirmed",
  guests: [{ first_name: "Lucía", last_name: "Pérez", email, is_holder: true }], ...o
})
const upsert = (body: Record<string, unknown>) => post(platform.baseUrl, "/api/v1/reservations", tenant.live_key, body)
const reservation = (email: string, o: Record<string, unknown> = {}) => upsert(reservationBody(email, o))

const cartJourney = (name: string, steps: Array<Record<string, unknown>>, trigger: Record<string, unknown> = {}) =>
  createJourney(sql, tenant, { name, trigger: { type: "event", event: `cart.abandoned`, ...trigger }, steps })

describe("journeys end to end", () => {
  it("a booking.created journey sends its email after its wait, once, with merge tags, and announces start and end", async () => {
    const journeyId = await createJourney(sql, tenant, {
      name: unique("Welcome"), trigger: { type: "event", event: "booking.created" },
      steps: [
        { id: "pause", type: "wait", duration: "PT1S" },
        { id: "welcome", type: "email", category: "utility", subject: "Welcome {{contact_first_name}} to {{hotel_name}}",
          html: "<p>Check-in {{event_check_in}} &amp; <b>{{contact_last_name}}</b></p>", text: "Check-in {{event_check_in}}" }
      ]
    })
    const email = `${unique("ana")}@gmail.com`
    const body = reservationBody(email)
    const res = await upsert(body)
    expect(res.status, JSON.stringify(res.body)).toBe(201)
    const contactId = res.body.data.contacts[0].contact_id as string
    const waiting = await runIn(sql, journeyId, contactId, ["waiting"])
    expect(mailsTo(email)).toHaveLength(0)
    const done = await runIn(sql, journeyId, contactId, ["completed"])
    expect(done.id).toBe(waiting.id)
    const mail = await soon("the welcome email", async () => mailsTo(email)[0])
    expect(mail.subject).toBe(`Welcome Lucía to ${tenant.hotel_name}`)
    expect(mail.html).toContain("Check-in 2027-03-01 &amp; <b>Pérez</b>")
    expect(mail.text?.trim()).toBe("Check-in 2027-03-01")
    const steps = await soon("the message sent", async () => {
      const s = await stepsOf(sql, done.id)
      return s[1]?.status === "sent" ? s : undefined
    })
    expect(steps.map((s) => [s.step_id, s.outcome])).toEqual([["pause", "waited"], ["welcome", "sent"]])
    // The run inspector: the booking as the run froze it, and each tag's value the email was rendered with.
    const view = (await request(platform.baseUrl, "GET", `/api/v1/journey-runs/${done.id}`, { key: tenant.live_key })).body.data
    expect(view.trigger).toMatchObject({ event_name: "booking.created", origin: "booking", payload: { check_in: "2027-03-01", check_out: "2027-03-04" } })
    expect(view.trigger.payload).not.toHaveProperty("contact_ids")
    expect(view.steps.map((x: any) => [x.step_id, x.merge_values])).toEqual([
      ["pause", null],
      ["welcome", { contact_first_name: "Lucía", hotel_name: tenant.hotel_name, event_check_in: "2027-03-01", contact_last_name: "Pérez" }]
    ])
    // A list of runs names the trigger without its payload.
    const listed = (await request(platform.baseUrl, "GET", `/api/v1/journeys/${journeyId}/runs`, { key: tenant.live_key })).body.data.runs
    expect(listed[0].trigger).toEqual({ event_name: "booking.created", event_id: view.trigger.event_id, origin: "booking" })
    // The same body resent emits no event: nothing starts twice.
    expect((await upsert(body)).body.data.event_id).toBeNull()
    await sleep(1_500)
    expect(await runsOf(sql, journeyId, contactId)).toHaveLength(1)
    expect(mailsTo(email)).toHaveLength(1)
    const hooks = await soon("journey webhooks", async () => {
      const all = receiver.on("/events").map((r) => ({ r, body: JSON.parse(r.raw.toString()) })).filter((e) => e.body.data.run?.id === done.id)
      return all.length >= 2 ? all : undefined
    })
    for (const h of hooks) expectVerifies(h.r, secret)
    expect(hooks.map((h) => h.body.event_type).sort()).toEqual(["journey.completed", "journey.started"])
    const completed = hooks.find((h) => h.body.event_type === "journey.completed")!.body
    expect(completed.data).toMatchObject({ outcome: "completed", journey: { id: journeyId, version: 1 }, contact: { id: contactId, email } })
    expect(completed.data.trigger).toMatchObject({ event: "booking.created", origin: "booking" })
  })

  it("a stop event for the same cart during the wait sends nothing and records stopped", async () => {
    const journeyId = await cartJourney(unique("Cart"), [
      { id: "w", type: "wait", duration: "PT2S" },
      { id: "e", type: "email", category: "utility", subject: "Your cart", text: "Come back" }
    ])
    const c = await newContact(platform.baseUrl, tenant)
    const cart = unique("cart")
    expect((await event({ event_type: "cart.abandoned", contact_id: c.id, payload: { context: { cart_id: cart } } })).status).toBe(201)
    await runIn(sql, journeyId, c.id, ["waiting"])
    // Another cart's checkout changes nothing; this cart's ends the run at once.
    await event({ event_type: "checkout.completed", contact_id: c.id, payload: { context: { cart_id: "another" } } })
    await event({ event_type: "checkout.completed", contact_id: c.id, payload: { context: { cart_id: cart } } })
    const stopped = await runIn(sql, journeyId, c.id, ["stopped"])
    expect(stopped.exit_reason).toBe("stop_event")
    await sleep(3_000)
    expect(mailsTo(c.email!)).toHaveLength(0)
    expect((await runsOf(sql, journeyId, c.id)).map((r) => r.state)).toEqual(["stopped"])
  })

  it("a real booking stops a cart-recovery run (stop_on_booking)", async () => {
    const journeyId = await cartJourney(unique("Recovery"), [
      { id: "w", type: "wait", duration: "PT3S" },
      { id: "e", type: "email", category: "utility", subject: "Your cart", text: "Come back" }
    ])
    const email = `${unique("booker")}@gmail.com`
    const first = await reservation(email, { status: "cancelled" })
    const contactId = first.body.data.contacts[0].contact_id as string
    await event({ event_type: "cart.abandoned", contact_id: contactId, payload: { context: { cart_id: unique("cart") } } })
    await runIn(sql, journeyId, contactId, ["waiting"])
    // A cancelled booking is not a booking; a confirmed one made after the run started is.
    await reservation(email, { status: "cancelled" })
    await sleep(500)
    expect((await runsOf(sql, journeyId, contactId))[0]!.state).toBe("waiting")
    await reservation(email)
    const stopped = await runIn(sql, journeyId, contactId, ["stopped"])
    expect(stopped.exit_reason).toBe("booked")
    await sleep(3_500)
    expect(mailsTo(email)).toHaveLength(0)
  })

  it("no consent: the marketing step is skipped with its reason and the run goes on", async () => {
    const journeyId = await createJourney(sql, tenant, {
      name: unique("Offer"), trigger: { type: "event", event: "review.requested" },
      steps: [
        { id: "offer", type: "email", category: "marketing", subject: "An offer", text: "20% off" },
        { id: "thanks", type: "email", category: "utility", subject: "Thank you", text: "Thanks for staying" }
      ]
    })
    const c = await newContact(platform.baseUrl, tenant, { email_consent: false })
    await event({ event_type: "review.requested", contact_id: c.id, payload: { score: 9 } })
    const run = await runIn(sql, journeyId, c.id, ["completed"])
    const steps = await soon("both messages recorded", async () => {
      const s = await stepsOf(sql, run.id)
      return s.every((x) => x.status !== null) ? s : undefined
    })
    expect(steps.map((s) => [s.step_id, s.status, s.skip_reason])).toEqual([
      ["offer", "skipped", "no_email_marketing_consent"], ["thanks", expect.stringMatching(/queued|sent/), null]
    ])
    const mail = await soon("the utility email", async () => mailsTo(c.email!)[0])
    expect(mail.subject).toBe("Thank you")
    // The runs API tells the same story: the gated step is skipped with the message's reason.
    const res = await request(platform.baseUrl, "GET", `/api/v1/journey-runs/${run.id}`, { key: tenant.live_key })
    expect(res.status).toBe(200)
    expect(res.body.data).toMatchObject({
      run_id: run.id, journey_id: journeyId, state: "completed", trigger: { event_name: "review.requested", origin: "core", payload: { score: 9 } }
    })
    expect(res.body.data.steps.map((x: any) => [x.step_id, x.outcome, x.reason])).toEqual([["offer", "skipped", "no_email_marketing_consent"], ["thanks", "sent", null]])
  })

  it("an email using the resume link is skipped with missing_resume_url when the event has none", async () => {
    const journeyId = await cartJourney(unique("Resume"), [
      { id: "e", type: "email", category: "utility", subject: "Finish your booking", html: "<a href=\"{{event_resume_url}}\">Resume</a>" }
    ])
    const c = await newContact(platform.baseUrl, tenant)
    await event({ event_type: "cart.abandoned", contact_id: c.id, payload: { context: { cart_id: unique("cart") } } })
    const run = await runIn(sql, journeyId, c.id, ["completed"])
    expect((await stepsOf(sql, run.id)).map((s) => [s.step_id, s.outcome, s.reason, s.message_id])).toEqual([["e", "skipped", "missing_resume_url", null]])
    const withLink = await newContact(platform.baseUrl, tenant)
    await event({ event_type: "cart.abandoned", contact_id: withLink.id, payload: { context: { cart_id: unique("cart"), resume_url: "https://book.example.com/r?a=1&b=2" } } })
    const mail = await soon("the resume email", async () => mailsTo(withLink.email!)[0])
    expect(mail.html).toContain("href=\"https://book.example.com/r?a=1&amp;b=2\"")
  })

  it("re-entry: never starts once per scope; always again once the run ended; a live run keeps its scope", async () => {
    const never = await createJourney(sql, tenant, { name: unique("Never"), trigger: { type: "event", event: "loyalty.visited" }, steps: [{ id: "w", type: "wait", duration: "PT1S" }] })
    const always = await createJourney(sql, tenant, {
      name: unique("Always"), trigger: { type: "event", event: "loyalty.visited", reentry: "always" }, steps: [{ id: "w", type: "wait", duration: "PT1S" }]
    })
    const c = await newContact(platform.baseUrl, tenant)
    await event({ event_type: "loyalty.visited", contact_id: c.id, payload: {} })
    await runIn(sql, always, c.id, ["waiting"])
    // While the first runs wait, the same event starts nothing (already in the journey).
    await event({ event_type: "loyalty.visited", contact_id: c.id, payload: {} })
    await runIn(sql, always, c.id, ["completed"])
    await runIn(sql, never, c.id, ["completed"])
    await event({ event_type: "loyalty.visited", contact_id: c.id, payload: {} })
    await soon("a second run of the always journey", async () => ((await runsOf(sql, always, c.id)).length === 2 ? true : undefined))
    await sleep(1_000)
    expect(await runsOf(sql, never, c.id)).toHaveLength(1)
  })

  it("pausing a journey stops its waiting runs when they wake; nothing is sent", async () => {
    const journeyId = await cartJourney(unique("Paused"), [
      { id: "w", type: "wait", duration: "PT1S" },
      { id: "e", type: "email", category: "utility", subject: "Never sent", text: "x" }
    ])
    const c = await newContact(platform.baseUrl, tenant)
    await event({ event_type: "cart.abandoned", contact_id: c.id, payload: { context: { cart_id: unique("cart") } } })
    await runIn(sql, journeyId, c.id, ["waiting"])
    await setJourneyStatus(sql, journeyId, "paused")
    const stopped = await runIn(sql, journeyId, c.id, ["stopped"])
    expect(stopped.exit_reason).toBe("journey_paused")
    expect(mailsTo(c.email!)).toHaveLength(0)
  })

  it("a PMS reporting the check-in by the reservation's status starts guest.checked_in journeys, scoped to the stay", async () => {
    const journeyId = await createJourney(sql, tenant, {
      name: unique("Welcome in"), trigger: { type: "event", event: "guest.checked_in" },
      steps: [{ id: "hi", type: "email", category: "utility", subject: "Welcome, room {{event_check_in}}", text: "Enjoy" }]
    })
    const email = `${unique("arrived")}@gmail.com`
    const body = reservationBody(email)
    const contactId = (await upsert(body)).body.data.contacts[0].contact_id as string
    await upsert({ ...body, status: "checked_in" })
    const run = await runIn(sql, journeyId, contactId, ["completed"])
    expect(run.scope).toMatch(/^reservation:/)
    await soon("the welcome email", async () => mailsTo(email)[0])
    // Still checked in (another field changed): no second arrival.
    await upsert({ ...body, status: "checked_in", amount: 10 })
    await sleep(1_000)
    expect(await runsOf(sql, journeyId, contactId)).toHaveLength(1)
  })

  it("a pre-arrival date journey fires once at the hotel's local time", async () => {
    const journeyId = await createJourney(sql, tenant, {
      name: unique("Pre-arrival"), trigger: { type: "reservation_date", anchor: "check_in", offset: "-P2D", local_time: "10:00" },
      steps: [{ id: "e", type: "email", category: "utility", subject: "See you on {{event_check_in}}", text: "Soon" }]
    })
    const email = `${unique("arrival")}@gmail.com`
    const res = await reservation(email, { check_in: "2027-06-10", check_out: "2027-06-12" })
    const contactId = res.body.data.contacts[0].contact_id as string
    const deps = { sql, namespace: platform.config.namespace, partitions: platform.config.partitions, publish: async () => {} }
    // Madrid is UTC+2 in June: 10:00 local on 2027-06-08 is 08:00Z.
    expect(await runJourneyDateScan(deps as never, new Date("2027-06-08T07:59:00Z"))).toBe(0)
    expect(await runJourneyDateScan(deps as never, new Date("2027-06-08T08:00:30Z"))).toBe(1)
    expect(await runJourneyDateScan(deps as never, new Date("2027-06-08T09:00:00Z"))).toBe(0)
    // The worker's outbox sweep publishes what the scan wrote.
    const run = await runIn(sql, journeyId, contactId, ["completed"], 20_000)
    expect(run.scope).toMatch(/^reservation:/)
    const mail = await soon("the pre-arrival email", async () => mailsTo(email)[0])
    expect(mail.subject).toBe("See you on 2027-06-10")
  })
})
