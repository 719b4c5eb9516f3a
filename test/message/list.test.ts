import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { randomUUID } from "node:crypto"
import { insertContact, insertJourney, insertMessage, insertRun } from "../support/consoleRows.ts"
import { messagesOf, newContact, send, startMailingPlatform, type MailingPlatform, useEncryptionKey } from "../support/messaging.ts"
import { createTenant, request, testSql, type TestTenant } from "../support/platform.ts"
import { eventually } from "../support/webhook.ts"

// GET /api/v1/messages: the account's messages across contacts, newest first, each filter proven on rows stored as
// the actors store them, and one real send refused by the mail server to show the error's meaning end to end.
const key = useEncryptionKey()
const sql = testSql()
let mail: MailingPlatform
let other: TestTenant

const list = async (tenant: TestTenant, query = "") => request(mail.platform.baseUrl, "GET", `/api/v1/messages${query}`, { key: tenant.live_key })
const ids = async (tenant: TestTenant, query: string) => {
  const res = await list(tenant, query)
  expect(res.status, JSON.stringify(res.body)).toBe(200)
  return (res.body.data.messages as Array<{ id: string }>).map((m) => m.id)
}

beforeAll(async () => {
  mail = await startMailingPlatform(sql, key, "msglist")
  other = await createTenant("msglist-other")
})
afterAll(async () => {
  await mail?.stop()
  await sql.end()
})

describe("GET /api/v1/messages", () => {
  it("shows a real send refused by the guest's mail server with what its error means, here and in the contact's messages", async () => {
    const t = mail.tenant
    const ok = await newContact(mail.platform.baseUrl, t)
    const gone = await newContact(mail.platform.baseUrl, t)
    mail.sink.failRecipient(gone.email!, 550, "5.1.1 <unknown>: Recipient address rejected: User unknown")
    for (const c of [ok, gone]) {
      const r = await send(mail.platform.baseUrl, t.live_key, { contact_id: c.id, channel: "email", category: "utility", subject: "Your stay", text: "Hello" })
      expect(r.status, JSON.stringify(r.body)).toBe(202)
    }
    const failed = await eventually("the refused email failed", async () => {
      const res = await list(t, `?contact_id=${gone.id}&status=failed`)
      return res.body.data.messages[0]
    }, 15_000)
    expect(failed).toMatchObject({ contact_id: gone.id, message_id: failed.id, channel: "email", status: "failed", to: gone.email })
    expect(failed.error.code).toBe("550")
    expect(failed.error.meaning).toContain("does not exist")
    expect(failed.statuses.at(-1)).toMatchObject({ status: "failed" })
    expect(failed.statuses[0].at).toBe(failed.statuses[0].occurred_at)
    const [own] = (await messagesOf(mail.platform.baseUrl, t.live_key, gone.id)).filter((m) => m.id === failed.id)
    expect(own.error.meaning).toBe(failed.error.meaning)
    const sent = await eventually("the other email sent", async () => (await list(t, `?contact_id=${ok.id}&status=sent`)).body.data.messages[0])
    expect(sent.error).toBeNull()
  })

  it("filters by channel, status, direction, template, journey, broadcast, hotel, contact and time, newest first", async () => {
    const t = await createTenant("msglist-f")
    const s = { tenant_id: t.tenant_id }
    const [a, b] = [await insertContact(sql, s), await insertContact(sql, s)]
    const journey = await insertJourney(sql, s)
    const run = await insertRun(sql, s, { journey_id: journey, contact_id: a })
    const otherRun = await insertRun(sql, s, { journey_id: await insertJourney(sql, s), contact_id: a })
    const broadcast = randomUUID()
    const at = (minutesAgo: number) => new Date(Date.now() - minutesAgo * 60_000).toISOString()
    const m = {
      email: await insertMessage(sql, s, { contact_id: a, created_at: at(60) }),
      whatsapp: await insertMessage(sql, s, { contact_id: a, channel: "whatsapp", template_name: "booking_confirmation", status: "failed", error_code: "131047", created_at: at(50) }),
      journey: await insertMessage(sql, s, { contact_id: a, journey_run_id: run, status: "read", created_at: at(40) }),
      otherJourney: await insertMessage(sql, s, { contact_id: a, journey_run_id: otherRun, created_at: at(35) }),
      broadcast: await insertMessage(sql, s, { contact_id: b, broadcast_id: broadcast, status: "skipped", skip_reason: "no_email_marketing_consent", created_at: at(30) }),
      hotel: await insertMessage(sql, s, { contact_id: b, hotel_id: t.hotel_id, created_at: at(20) }),
      inbound: await insertMessage(sql, s, { contact_id: b, channel: "whatsapp", direction: "inbound", status: "received", created_at: at(10) }),
      old: await insertMessage(sql, s, { contact_id: b, created_at: "2026-01-15T12:00:00Z" })
    }
    expect(await ids(t, "")).toEqual([m.inbound, m.hotel, m.broadcast, m.otherJourney, m.journey, m.whatsapp, m.email, m.old])
    expect(await ids(t, "?channel=whatsapp")).toEqual([m.inbound, m.whatsapp])
    expect(await ids(t, "?status=failed")).toEqual([m.whatsapp])
    expect(await ids(t, "?direction=inbound")).toEqual([m.inbound])
    expect(await ids(t, "?template=booking_confirmation")).toEqual([m.whatsapp])
    expect(await ids(t, `?journey_id=${journey}`)).toEqual([m.journey])
    expect(await ids(t, `?broadcast_id=${broadcast.toUpperCase()}`)).toEqual([m.broadcast])
    expect(await ids(t, `?hotel_id=${t.hotel_id}`)).toEqual([m.hotel])
    expect(await ids(t, `?contact_id=${b}&channel=email`)).toEqual([m.hotel, m.broadcast, m.old])
    expect(await ids(t, "?from=2026-01-15&to=2026-01-15")).toEqual([m.old])
    expect(await ids(t, `?from=${encodeURIComponent(at(45))}&to=${encodeURIComponent(at(25))}`)).toEqual([m.broadcast, m.otherJourney, m.journey])
    const [j] = (await list(t, `?journey_id=${journey}`)).body.data.messages
    expect(j).toMatchObject({ journey_id: journey, run_id: run, journey_run_id: run, broadcast_id: null })
    const [w] = (await list(t, "?status=failed")).body.data.messages
    expect(w.error).toEqual({ code: "131047", message: null, meaning: expect.stringContaining("24 hours") })
    const [skipped] = (await list(t, `?broadcast_id=${broadcast}`)).body.data.messages
    expect(skipped).toMatchObject({ status: "skipped", skip_reason: "no_email_marketing_consent", broadcast_id: broadcast, error: null })
  })

  it("pages newest first without repeating or skipping a message, even when several share a time", async () => {
    const t = await createTenant("msglist-p")
    const s = { tenant_id: t.tenant_id }
    const c = await insertContact(sql, s)
    const same = new Date().toISOString()
    const stored = [] as Array<string>
    for (let i = 0; i < 5; i++) stored.push(await insertMessage(sql, s, { contact_id: c, created_at: same }))
    stored.push(await insertMessage(sql, s, { contact_id: c, created_at: new Date(Date.now() - 1000).toISOString() }))
    const seen: Array<string> = []
    let cursor: string | null = null
    do {
      const res = await list(t, `?limit=2${cursor === null ? "" : `&cursor=${encodeURIComponent(cursor)}`}`)
      expect(res.status).toBe(200)
      seen.push(...res.body.data.messages.map((m: { id: string }) => m.id))
      cursor = res.body.data.next_cursor
    } while (cursor !== null)
    expect(seen.length).toBe(6)
    expect(new Set(seen)).toEqual(new Set(stored))
    expect(seen.at(-1)).toBe(stored.at(-1))
  })

  it("answers 400 naming the parameter for each bad filter", async () => {
    const bad: Array<[string, string]> = [
      ["channel=sms", "channel"], ["status=bounced", "status"], ["direction=sideways", "direction"], ["journey_id=x", "journey_id"],
      ["broadcast_id=1", "broadcast_id"], ["hotel_id=nope", "hotel_id"], ["contact_id=%20", "contact_id"], ["from=yesterday", "from"],
      ["to=2026-02-30", "to"], ["from=2026-05-02&to=2026-05-01", "to"], ["limit=0", "limit"], ["cursor=garbage", "cursor"],
      [`template=${"x".repeat(513)}`, "template"]
    ]
    for (const [query, parameter] of bad) {
      const res = await list(mail.tenant, `?${query}`)
      expect(res.status, query).toBe(400)
      expect(res.body.error.code, query).toBe("VALIDATION_ERROR")
      expect(Object.keys(res.body.error.details), query).toEqual([parameter])
    }
  })

  it("never shows another tenant's messages, whatever the filters name", async () => {
    const s = { tenant_id: other.tenant_id }
    const theirs = await insertContact(sql, s)
    const journey = await insertJourney(sql, s)
    const run = await insertRun(sql, s, { journey_id: journey, contact_id: theirs })
    const id = await insertMessage(sql, s, { contact_id: theirs, journey_run_id: run, hotel_id: other.hotel_id })
    expect(await ids(other, "")).toContain(id)
    for (const query of ["", `?contact_id=${theirs}`, `?journey_id=${journey}`, `?hotel_id=${other.hotel_id}`]) {
      expect(await ids(mail.tenant, query), query).not.toContain(id)
    }
    // Nor the other mode: a sandbox key of the same tenant sees none of the live messages.
    const sandbox = await request(mail.platform.baseUrl, "GET", "/api/v1/messages", { key: other.test_key })
    expect(sandbox.body.data.messages).toEqual([])
  })

  it("is the read beside the send: a GET with an Idempotency-Key sends nothing, and a POST still sends", async () => {
    const t = mail.tenant
    const before = mail.sink.mails.length
    const res = await request(mail.platform.baseUrl, "GET", "/api/v1/messages?limit=1", { key: t.live_key, headers: { "idempotency-key": "same-key" } })
    expect(res.status).toBe(200)
    expect(res.headers.get("idempotent-replayed")).toBeNull()
    const c = await newContact(mail.platform.baseUrl, t)
    const posted = await send(mail.platform.baseUrl, t.live_key, { contact_id: c.id, channel: "email", category: "utility", subject: "s", text: "x" }, "same-key")
    expect(posted.status).toBe(202)
    await mail.sink.waitFor(before + 1)
  })
})
