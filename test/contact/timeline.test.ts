import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { phone, reservation, uniqueId } from "../support/fixtures.ts"
import { createJourney, runIn } from "../support/journeys.ts"
import { createCtiIntegration, createTenant, post, request, startPlatform, testSql, type RunningPlatform, type TestTenant } from "../support/platform.ts"
import { eventually } from "../support/webhook.ts"
import { contactReads, type TimelineItem as Item } from "./support.ts"

// The timeline over the sources a stay touches (reservations, events, messages, journeys, loyalty, calls, consent),
// its order and paging; the website, browser and WhatsApp sources are in timelineChannels.test.ts.

let platform: RunningPlatform
let tenant: TestTenant
let ctiToken: string
const sql = testSql()

beforeAll(async () => {
  platform = await startPlatform("timeline")
  tenant = await createTenant("timeline")
  ctiToken = (await createCtiIntegration(tenant.tenant_id, "aircall")).token
  // No SMTP server: sends stay queued, which is all the timeline needs to show.
  await sql`INSERT INTO channel_email (tenant_id, sandbox, from_address) VALUES (${tenant.tenant_id}, false, 'stay@hotelexample.com')`
})
afterAll(async () => {
  await platform?.stop()
  await sql.end()
})

const { api, timeline } = contactReads(() => platform, () => tenant)

/** Every item, walking the pages of `limit` items. */
const walk = async (contactId: string, limit: number) => {
  const all: Array<Item> = []
  let cursor: string | null = null
  for (let pages = 0; pages < 100; pages++) {
    const page = await timeline(contactId, `?limit=${limit}${cursor === null ? "" : `&cursor=${cursor}`}`)
    expect(page.items.length).toBeLessThanOrEqual(limit)
    all.push(...page.items)
    cursor = page.next_cursor
    if (cursor === null) break
  }
  return all
}

describe("GET /api/v1/contacts/{contact_id}/timeline", () => {
  it("holds reservations, events, messages, a journey run, loyalty movements, calls and consent, newest first, paged", async () => {
    const p = phone(Math.floor(Math.random() * 80_000_000))
    const email = `${uniqueId("tl").toLowerCase()}@gmail.com`
    const booked = reservation({ hotel_code: tenant.hotel_code }, {
      guests: [{ first_name: "Lía", last_name: "Timeline", phone: p, email, is_holder: true, email_consent: true }]
    })
    const first = await api("POST", "/api/v1/reservations", booked)
    const contactId = first.contacts[0].contact_id as string
    await api("POST", "/api/v1/reservations", { ...booked, status: "checked_in" })

    const trigger = `timeline.${uniqueId("t").replace(/[^a-z0-9]/gi, "_").toLowerCase()}`
    const journeyId = await createJourney(sql, tenant, {
      name: "Timeline welcome", trigger: { type: "event", event: trigger },
      steps: [{ id: "hello", type: "email", category: "utility", subject: "Hello", text: "Hello" }, { id: "done", type: "end" }]
    })
    await api("POST", "/api/v1/events", { event_type: trigger, contact_id: contactId, payload: { note: "x" } })
    await api("POST", "/api/v1/messages", { contact_id: contactId, channel: "email", category: "utility", subject: "Your stay", text: "See you" })
    const member = await api("POST", "/api/v1/loyalty/enroll", { email, loyalty_balance: 100 })
    await api("POST", "/api/v1/loyalty/points", { member_id: member.member_id, points: 50, external_reference_id: uniqueId("earn") })
    const call = await post(platform.baseUrl, "/api/webhooks/cti", ctiToken, {
      event: "call_completed", call_id: uniqueId("call"), direction: "inbound", from: p, to: "+34910000000",
      started_at: new Date().toISOString(), ended_at: new Date(Date.now() + 60_000).toISOString()
    })
    expect(call.status, JSON.stringify(call.body)).toBeLessThan(300)
    await runIn(sql, journeyId, contactId, ["completed"])

    const all = await eventually("every source in the timeline", async () => {
      const items = (await timeline(contactId, "?limit=100")).items
      const kinds = new Set(items.map((i) => i.kind))
      return ["reservation", "event", "message", "journey_entered", "journey_step", "journey_ended", "loyalty_movement", "call", "consent_change"]
          .every((k) => kinds.has(k)) && items.filter((i) => i.kind === "message").length === 2
        ? items
        : undefined
    }, 30_000)

    // Newest first (the journey's email is handed to messaging after its step: both messages are waited for above).
    const times = all.map((i) => Date.parse(i.at))
    expect(times).toEqual([...times].sort((a, b) => b - a))
    expect(all.filter((i) => i.kind === "reservation").map((i) => i.data.event_type).sort()).toEqual(["booking.created", "booking.updated"])
    expect(all.find((i) => i.kind === "reservation" && i.data.event_type === "booking.updated")!.data).toMatchObject({
      external_reservation_id: booked.reservation_id, status: "checked_in", hotel_id: tenant.hotel_id
    })
    expect(all.find((i) => i.kind === "event")!.data).toMatchObject({ type: trigger })
    const sent = all.filter((i) => i.kind === "message")
    expect(sent.map((m) => m.data.subject).sort()).toEqual(["Hello", "Your stay"])
    expect(sent[0]!.data).toMatchObject({ channel: "email", category: "utility", statuses: expect.any(Array) })
    // A message's status chain, oldest first, as the provider reported it.
    const chained = sent[0]!
    await sql`INSERT INTO message_statuses (message_id, tenant_id, sandbox, status, error_code, occurred_at, applied)
      VALUES (${chained.id}, ${tenant.tenant_id}, false, 'delivered', NULL, '2030-01-01T00:00:01Z', true),
             (${chained.id}, ${tenant.tenant_id}, false, 'failed', 'x_test', '2030-01-01T00:00:02Z', false)`
    // A provider's error, and what it means: the reply's enhanced status (5.1.1) read before its code. Failed for good,
    // so no retry of the send (it finds no SMTP server) writes its own error over this one.
    await sql`UPDATE messages SET status = 'failed', error_code = '550', error_message = '550 5.1.1 <x@example.com>: Recipient address rejected' WHERE id = ${chained.id}`
    const shown = (await timeline(contactId, "?limit=100")).items.find((i) => i.id === chained.id)!
    expect(shown.data).toMatchObject({ error_code: "550", error_meaning: "The guest's email address does not exist at their mail provider." })
    const chain = shown.data.statuses as Array<unknown>
    expect(chain.slice(-2)).toEqual([
      { status: "delivered", at: "2030-01-01T00:00:01.000Z", error_code: null },
      { status: "failed", at: "2030-01-01T00:00:02.000Z", error_code: "x_test" }
    ])
    expect(all.find((i) => i.kind === "journey_ended")!.data).toMatchObject({ journey_id: journeyId, journey_name: "Timeline welcome", state: "completed" })
    expect(all.filter((i) => i.kind === "journey_step").map((i) => i.data.step_id).sort()).toEqual(["done", "hello"])
    expect(all.filter((i) => i.kind === "loyalty_movement").map((i) => i.data.points).sort()).toEqual([100, 50])
    expect(all.find((i) => i.kind === "call")!.data).toMatchObject({ provider: "aircall", direction: "inbound" })
    expect(all.find((i) => i.kind === "consent_change")!.data).toMatchObject({ channel: "email", granted: true })
    // Each kind's one line, made from its data (src/contact/timelineSummary.ts).
    const summaries = all.map((i) => i.summary)
    for (const line of [
      `Reservation ${booked.reservation_id} created (confirmed, ${booked.check_in} to ${booked.check_out})`,
      `Reservation ${booked.reservation_id} updated (checked_in, ${booked.check_in} to ${booked.check_out})`, `Event ${trigger} from api`,
      "Email utility message queued", "Entered journey Timeline welcome", "Journey Timeline welcome: email step hello sent",
      "Journey Timeline welcome: end step done ended", "Journey Timeline welcome completed: completed", "+100 points (opening_balance), balance 100",
      "+50 points (earn), balance 150", "Inbound call missed, 60 s", "Email marketing consent granted (reservation:pms)"
    ]) expect(summaries, line).toContain(line)
    // Summaries carry no personal data of the record.
    for (const i of all) {
      expect(i.summary, i.kind).not.toContain(email)
      expect(i.summary, i.kind).not.toContain(p.replace(/\s/g, ""))
      expect(i.summary, i.kind).not.toContain("Lía")
    }

    // Pages of 2: the same items in the same order, none skipped, none repeated.
    const paged = await walk(contactId, 2)
    expect(paged.map((i) => `${i.kind}/${i.id}`)).toEqual(all.map((i) => `${i.kind}/${i.id}`))
  }, 120_000)

  it("shows a reservation to its companions too (its booking events name the holder)", async () => {
    const booked = reservation({ hotel_code: tenant.hotel_code }, {
      guests: [
        { first_name: "Hol", last_name: "Der", phone: phone(Math.floor(Math.random() * 80_000_000)), is_holder: true },
        { first_name: "Com", last_name: "Panion", email: `${uniqueId("comp").toLowerCase()}@gmail.com` }
      ]
    })
    const answer = await api("POST", "/api/v1/reservations", booked)
    await api("POST", "/api/v1/reservations", { ...booked, status: "cancelled" })
    const ids = answer.contacts.map((c: { contact_id: string }) => c.contact_id) as Array<string>
    expect(ids).toHaveLength(2)
    for (const id of ids) {
      const items = (await timeline(id)).items.filter((i) => i.kind === "reservation")
      expect(items.map((i) => i.data.event_type), id).toEqual(["booking.cancelled", "booking.created"])
      expect(items[0]!.data).toMatchObject({ external_reservation_id: booked.reservation_id, status: "cancelled" })
    }
  })

  it("is empty for a contact with no history, and refuses a bad limit or cursor naming it", async () => {
    const guest = await api("POST", "/api/v1/guests", { phone: phone(Math.floor(Math.random() * 80_000_000)), first_name: "Quiet", last_name: "One" })
    expect(await timeline(guest.contact_id)).toEqual({ items: [], next_cursor: null })
    for (const [query, parameter] of [["?limit=0", "limit"], ["?limit=x", "limit"], ["?cursor=abc", "cursor"]] as const) {
      const res = await request(platform.baseUrl, "GET", `/api/v1/contacts/${guest.contact_id}/timeline${query}`, { key: tenant.live_key })
      expect(res.status).toBe(400)
      expect(res.body.error.details).toHaveProperty(parameter)
    }
    const bad = await request(platform.baseUrl, "GET", "/api/v1/contacts/12/timeline", { key: tenant.live_key })
    expect(bad.status).toBe(400)
    expect(bad.body.error.details).toHaveProperty("contact_id")
  })
})
