import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { setTimeout as sleep } from "node:timers/promises"
import { startMailingPlatform, useEncryptionKey, type MailingPlatform } from "../support/messaging.ts"
import { outboxMessages } from "../support/outbox.ts"
import { createTenant, request, testConfig, testSql } from "../support/platform.ts"
import { api, audience, emailBroadcast, tagged } from "./support.ts"

// Broadcasts end to end on the real platform: API → broadcast actor (snapshot, dispatch) → message actor (gates) →
// deliverer → a real SMTP server; every recipient accounted for, nobody mailed twice.

const key = useEncryptionKey()
const sql = testSql()
let m: MailingPlatform
let b: ReturnType<typeof api>

beforeAll(async () => {
  m = await startMailingPlatform(sql, key, "broadcasts", { GEP_BROADCAST_SWEEP_MS: "100" })
  b = api(m.platform.baseUrl, m.tenant)
}, 60_000)
afterAll(async () => {
  await m?.stop()
  await sql.end()
})

const mailsTo = (emails: ReadonlyArray<string | null>) => m.sink.mails.filter((x) => x.to.some((t) => emails.includes(t)))
const emailsOf = async (ids: ReadonlyArray<string>) =>
  (await sql`SELECT email FROM contacts WHERE id = ANY(${ids as Array<string>}::uuid[])`).map((r) => r.email as string)

describe("broadcasts", () => {
  it("sends one message per reachable recipient, skips the rest with their reason, and counts add up", async () => {
    const tag = `spring-${Date.now()}`
    const consenting = await audience(sql, m.platform.baseUrl, m.tenant, tag, 6)
    const refusing = await audience(sql, m.platform.baseUrl, m.tenant, tag, 3, false)
    const id = await b.create(emailBroadcast(tag))
    expect((await b.get(id)).status).toBe("draft")
    const sent = await b.act(id, "send")
    expect(sent.status, JSON.stringify(sent.body)).toBe(200)
    expect(["sending", "sent"]).toContain(sent.body.data.status)
    const done = await b.until(id, "sent", (x) => x.status === "sent" && x.completed_at !== null)
    // The preview of the same definition on the same (static) data counts what the snapshot took.
    const preview = await b.call("POST", "/api/v1/segments/preview", { definition: tagged(tag) })
    expect(preview.body.data.count).toBe(done.counts.targeted)
    expect(done.counts).toMatchObject({ targeted: 9, pending: 0, queued: 0, sent: 6, skipped: 3, skipped_by_reason: { no_consent: 3 } })
    const mails = mailsTo(await emailsOf(consenting))
    expect(mails).toHaveLength(6)
    expect(new Set(mails.map((x) => x.messageId)).size).toBe(6)
    expect(mails[0]!.subject).toBe("Primavera") // the contacts speak Spanish: the es variant
    expect(mailsTo(await emailsOf(refusing))).toHaveLength(0)
    const recipients = await b.recipients(id)
    expect(recipients).toHaveLength(9)
    expect(recipients.filter((r) => r.status === "skipped").map((r) => r.skip_reason)).toEqual(["no_consent", "no_consent", "no_consent"])
    expect((await b.recipients(id, "&status=sent")).map((r) => r.contact_id).sort()).toEqual([...consenting].sort())
    // Both webhooks' commands were written, once each, with the counts.
    const events = (await outboxMessages(testConfig("broadcasts").namespace, m.tenant.tenant_id))
      .filter((e) => e.id === `broadcast.sent:${id}` || e.id === `broadcast.completed:${id}`)
    expect(events.map((e) => e.id).sort()).toEqual([`broadcast.completed:${id}`, `broadcast.sent:${id}`])
    expect((events[0]!.payload as { data: { counts: Record<string, unknown> } }).data.counts).toMatchObject({ targeted: 9, sent: 6, skipped: 3 })
    // Sending again is answered as it is; a sent broadcast neither pauses nor changes.
    expect((await b.act(id, "send")).status).toBe(409)
    expect((await b.call("PATCH", `/api/v1/broadcasts/${id}`, { name: "x" })).status).toBe(409)
  }, 60_000)

  it("pauses and resumes without sending anyone twice; an opt-out after the snapshot is no_consent; a paced broadcast hands over no faster than its rate", async () => {
    const tag = `paced-${Date.now()}`
    const ids = await audience(sql, m.platform.baseUrl, m.tenant, tag, 8)
    const id = await b.create(emailBroadcast(tag, { rate_limit_per_minute: 120 }))
    await b.act(id, "send")
    await b.until(id, "two handed over", (x) => x.counts.pending <= 6 && x.phase === "dispatching")
    expect((await b.act(id, "pause")).body.data.status).toBe("paused")
    const paused = await b.get(id)
    await sleep(2_500)
    expect((await b.get(id)).counts.pending).toBe(paused.counts.pending)
    // A recipient not yet handed over opts out after the snapshot: decided at send time, skipped as no_consent.
    const waiting = (await b.recipients(id, "&status=pending")).map((r) => r.contact_id as string)
    const optedOut = waiting[0]!
    expect((await b.call("POST", `/api/v1/contacts/${optedOut}/opt-out`, { channel: "email" })).status).toBe(200)
    expect((await b.act(id, "resume")).body.data.status).toBe("sending")
    const done = await b.until(id, "sent", (x) => x.status === "sent")
    expect(done.counts).toMatchObject({ targeted: 8, sent: 7, skipped: 1, skipped_by_reason: { no_consent: 1 } })
    expect((await b.recipients(id, "&status=skipped")).map((r) => [r.contact_id, r.skip_reason])).toEqual([[optedOut, "no_consent"]])
    const mails = mailsTo(await emailsOf(ids))
    expect(mails).toHaveLength(7)
    expect(new Set(mails.map((x) => x.to[0])).size).toBe(7)
    // 120 a minute is 2 a second: 8 recipients took at least 3 s from the first hand-over to the last (the pause adds).
    const queued = (await sql`SELECT queued_at FROM broadcast_recipients WHERE broadcast_id = ${id} ORDER BY queued_at`).map((r) => (r.queued_at as Date).getTime())
    expect(queued[queued.length - 1]! - queued[0]!).toBeGreaterThanOrEqual(2_500)
  }, 60_000)

  it("cancel mid-send: nothing sent after the answer, the rest skipped as cancelled", async () => {
    const tag = `cancel-${Date.now()}`
    const ids = await audience(sql, m.platform.baseUrl, m.tenant, tag, 10)
    const id = await b.create(emailBroadcast(tag, { rate_limit_per_minute: 60 }))
    await b.act(id, "send")
    await b.until(id, "snapshot taken", (x) => x.phase === "dispatching")
    const cancelled = await b.act(id, "cancel")
    expect(cancelled.body.data.status).toBe("cancelled")
    const answeredAt = new Date()
    await sleep(3_000)
    const after = await b.get(id)
    // No attempt started after the cancel was answered (one claimed before it may still finish).
    const late = await sql`SELECT count(*)::int AS n FROM messages WHERE broadcast_id = ${id} AND attempt_started_at > ${answeredAt}`
    expect(late[0]!.n).toBe(0)
    expect(mailsTo(await emailsOf(ids)).length).toBe(after.counts.sent)
    const recipients = await b.recipients(id)
    expect(recipients.filter((r) => r.skip_reason === "cancelled").length).toBeGreaterThan(0)
    expect(after.counts.targeted).toBe(10)
    expect(after.counts.pending + after.counts.queued).toBe(0)
  }, 60_000)

  it("refuses what the lifecycle does not allow, checks a draft whole, and keeps each account's broadcasts to itself", async () => {
    const tag = `rules-${Date.now()}`
    const id = await b.create(emailBroadcast(tag))
    expect((await b.act(id, "schedule")).status).toBe(422) // no schedule.send_at
    expect((await b.act(id, "pause")).status).toBe(409)
    const badTag = await b.call("POST", "/api/v1/broadcasts", emailBroadcast(tag, { content: { subject: "{{nope}}", text: "x" } }))
    expect(badTag.status).toBe(422)
    expect(badTag.body.error.details).toHaveProperty(["content.subject"])
    const noSegment = await b.call("POST", "/api/v1/broadcasts", emailBroadcast(tag, { audience: { segment_id: "00000000-0000-4000-8000-000000000000" } }))
    expect(noSegment.status).toBe(422)
    expect(noSegment.body.error.details).toHaveProperty(["audience.segment_id"])
    const whatsappText = await b.call("POST", "/api/v1/broadcasts", emailBroadcast(tag, { channel: "whatsapp" }))
    expect(whatsappText.status).toBe(422)
    const patched = await b.call("PATCH", `/api/v1/broadcasts/${id}`, { name: "Renamed", schedule: { send_at: new Date(Date.now() + 1_000).toISOString() } })
    expect(patched.status, JSON.stringify(patched.body)).toBe(200)
    expect(patched.body.data).toMatchObject({ name: "Renamed", version: 2 })
    // Scheduled a second ahead: the sweep starts it; with nobody tagged it is sent at once, to nobody.
    expect((await b.act(id, "schedule")).body.data.status).toBe("scheduled")
    const done = await b.until(id, "sent", (x) => x.status === "sent")
    expect(done.counts.targeted).toBe(0)

    // The frequency cap is the account's: the default, then its own, then the default again.
    expect((await b.call("GET", "/api/v1/broadcast-settings")).body.data).toEqual({ marketing_frequency_cap_hours: 16, is_default: true })
    expect((await b.call("PATCH", "/api/v1/broadcast-settings", { marketing_frequency_cap_hours: 0 })).body.data).toEqual({ marketing_frequency_cap_hours: 0, is_default: false })
    expect((await sql`SELECT marketing_cap_hours FROM tenant_settings WHERE tenant_id = ${m.tenant.tenant_id}`)[0]!.marketing_cap_hours).toBe(0)
    expect((await b.call("PATCH", "/api/v1/broadcast-settings", { marketing_frequency_cap_hours: null })).body.data.is_default).toBe(true)

    const other = await createTenant("broadcasts-other")
    const foreign = api(m.platform.baseUrl, other)
    expect((await foreign.call("GET", `/api/v1/broadcasts/${id}`)).status).toBe(404)
    expect((await foreign.act(id, "cancel")).status).toBe(404)
    expect((await foreign.call("GET", `/api/v1/broadcasts/${id}/recipients`)).status).toBe(404)
    expect((await request(m.platform.baseUrl, "GET", `/api/v1/broadcasts/${id}`, { key: m.tenant.test_key })).status).toBe(404)
  }, 60_000)

  it("with recipient_local_time, each recipient is handed over at send_at's wall time in their stay's zone", async () => {
    const tag = `local-${Date.now()}`
    // Two hotels at the ends of the clock: UTC+14 and UTC-11.
    const zones = ["Pacific/Kiritimati", "Pacific/Pago_Pago"]
    const codes = zones.map((_, i) => `LT${Date.now().toString(36)}${i}`)
    for (const [i, zone] of zones.entries()) {
      await sql`INSERT INTO hotels (tenant_id, code, name, timezone) VALUES (${m.tenant.tenant_id}, ${codes[i]!}, ${`Hotel ${zone}`}, ${zone})`
    }
    const contacts: Array<string> = []
    for (const code of codes) {
      const res = await b.call("POST", "/api/v1/reservations", {
        reservation_id: `${code}-R`, hotel_code: code, check_in: "2027-01-10", check_out: "2027-01-12", status: "confirmed", source: "pms",
        guests: [{ first_name: "Local", last_name: code, email: `${code.toLowerCase()}@gmail.com`, email_consent: true, is_holder: true }]
      })
      expect(res.status, JSON.stringify(res.body)).toBe(201)
      contacts.push(res.body.data.contacts[0].contact_id)
    }
    await sql`UPDATE contacts SET tags = array_append(tags, ${tag}) WHERE id = ANY(${contacts}::uuid[])`
    // send_at's wall time is an hour from now in UTC: already past at UTC+14, twelve hours ahead at UTC-11.
    const wall = new Date(Date.now() + 3_600_000).toISOString().slice(0, 19)
    const id = await b.create(emailBroadcast(tag, { schedule: { send_at: `${wall}+00:00`, recipient_local_time: true } }))
    await b.act(id, "send")
    const early = await b.until(id, "the first zone handed over", (x) => x.counts.pending === 1 && x.counts.sent === 1)
    expect(early).toMatchObject({ status: "sending", phase: "dispatching", counts: { targeted: 2 } })
    expect((await b.recipients(id, "&status=pending")).map((r) => r.contact_id)).toEqual([contacts[1]])
    expect((await b.act(id, "cancel")).body.data.counts).toMatchObject({ sent: 1, skipped_by_reason: { cancelled: 1 } })
  }, 60_000)

  it("a broadcast still scheduled past its deadline is cancelled; a test send reaches one contact and is not counted", async () => {
    const tag = `late-${Date.now()}`
    const [contact] = await audience(sql, m.platform.baseUrl, m.tenant, tag, 1)
    const id = await b.create(emailBroadcast(tag, {
      schedule: { send_at: new Date(Date.now() + 60_000).toISOString() }, send_deadline: new Date(Date.now() + 120_000).toISOString()
    }))
    const test = await b.call("POST", `/api/v1/broadcasts/${id}/test`, { to: contact })
    expect(test.status, JSON.stringify(test.body)).toBe(202)
    expect(test.body.data.status).toBe("queued")
    expect((await b.act(id, "schedule")).body.data.status).toBe("scheduled")
    // As if the platform had been down from before send_at until past the deadline.
    await sql`UPDATE broadcasts SET send_at = now() - interval '2 minutes', send_deadline = now() - interval '1 minute', next_step_at = now() WHERE id = ${id}`
    const cancelled = await b.until(id, "cancelled", (x) => x.status === "cancelled")
    expect(cancelled).toMatchObject({ status_reason: "deadline_passed", counts: { targeted: 0 } })
  }, 60_000)
})
