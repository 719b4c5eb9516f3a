import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { randomUUID } from "node:crypto"
import { recipientSkipReason } from "../../../core/message/broadcastGate.ts"
import { isQuiet, quietHoursEnd, wallOf } from "../../../core/message/quietHours.ts"
import type { SegmentDefinition } from "../../../schemas/segment.ts"
import { broadcastMessageId, broadcastSend, insertBroadcast, insertRecipient, messageActor } from "../../support/broadcasts.ts"
import { type MailingPlatform, newContact, startMailingPlatform, useEncryptionKey } from "../../support/messaging.ts"
import { testSql } from "../../support/platform.ts"
import { eventually } from "../../support/webhook.ts"

// A broadcast's messages through the one send path (the message actor of a real platform, real PostgreSQL, NATS and
// SMTP): each decided at send time against the broadcast row, as the broadcast actor's sends will be.

const key = useEncryptionKey()
const sql = testSql()
let m: MailingPlatform
let actor: ReturnType<typeof messageActor>

const spring: SegmentDefinition = { version: 1, match: { field: "contact.tags", op: "contains_any", value: ["spring"] } }
const staff: SegmentDefinition = { version: 1, match: { field: "contact.tags", op: "contains_any", value: ["staff"] } }

beforeAll(async () => {
  m = await startMailingPlatform(sql, key, "bsend")
  actor = messageActor(m.platform.config)
})
afterAll(async () => {
  await actor?.close()
  await m?.stop()
  await sql.end()
})

/** A guest with marketing consent for email, tagged as given (the segment reads the tags). */
const guest = async (tags: ReadonlyArray<string>, consent = true) => {
  const c = await newContact(m.platform.baseUrl, m.tenant, { email_consent: consent })
  await sql`UPDATE contacts SET tags = ${tags as Array<string>} WHERE id = ${c.id}`
  return c
}
const send = (broadcastId: string, contactId: string) => actor.send(m.tenant, broadcastSend(broadcastId, contactId))
const stored = async (id: string) => (await sql`SELECT status, skip_reason, broadcast_id, origin, not_before FROM messages WHERE id = ${id}`)[0]

describe("a broadcast's message, decided at send time", () => {
  it("goes to a guest who still matches and consents, once however often it is sent, recorded with its broadcast", async () => {
    const b = await insertBroadcast(sql, m.tenant, { definition: spring, exclusions: [staff] })
    const c = await guest(["spring"])
    const first = await send(b, c.id)
    expect(first).toMatchObject({ message_id: broadcastMessageId(b, c.id), status: "queued", skip_reason: null, is_new: true })
    const again = await send(b, c.id)
    expect(again).toMatchObject({ message_id: first.message_id, is_new: false })
    expect(await stored(first.message_id)).toMatchObject({ broadcast_id: b, origin: "broadcast", not_before: null })
    const header = `<${first.message_id}@hotelexample.com>`
    await eventually("the mail in the sink", async () => m.sink.mails.find((mail) => mail.messageId === header))
    await eventually("the message sent", async () => ((await stored(first.message_id))!.status === "sent" ? true : undefined))
    expect(m.sink.countByMessageId().get(header)).toBe(1)
    expect((await sql`SELECT count(*)::int AS n FROM messages WHERE broadcast_id = ${b} AND contact_id = ${c.id}`)[0]!.n).toBe(1)
  })

  it("skips a guest who opted out after the snapshot: opted_out on the message, no_consent for the recipient", async () => {
    const b = await insertBroadcast(sql, m.tenant, { definition: spring })
    const c = await guest(["spring"])
    await sql`UPDATE contacts SET email_consent = false, email_opted_out_at = now() WHERE id = ${c.id}`
    const outcome = await send(b, c.id)
    expect(outcome).toMatchObject({ status: "skipped", skip_reason: "opted_out" })
    expect(recipientSkipReason(outcome.skip_reason as "opted_out")).toBe("no_consent")
  })

  it("skips a guest who no longer matches the definition, or now matches an exclusion", async () => {
    const b = await insertBroadcast(sql, m.tenant, { definition: spring, exclusions: [staff] })
    const untagged = await guest([])
    const excluded = await guest(["spring", "staff"])
    expect(await send(b, untagged.id)).toMatchObject({ status: "skipped", skip_reason: "no_longer_matches" })
    expect(await send(b, excluded.id)).toMatchObject({ status: "skipped", skip_reason: "no_longer_matches" })
  })

  it("skips, and does not fail, when the stored definition is no longer valid (a custom field removed since)", async () => {
    const gone: SegmentDefinition = { version: 1, match: { field: "custom.loyalty_tier", op: "eq", value: "gold" } }
    const b = await insertBroadcast(sql, m.tenant, { definition: gone })
    const c = await guest(["spring"])
    expect(await send(b, c.id)).toMatchObject({ status: "skipped", skip_reason: "no_longer_matches" })
  })

  it("caps marketing per contact and channel: a marketing email an hour ago skips it, unless the tenant turned the cap off", async () => {
    const b = await insertBroadcast(sql, m.tenant, { definition: spring })
    const [capped, uncapped, olderOnly] = [await guest(["spring"]), await guest(["spring"]), await guest(["spring"])]
    const earlier = (contactId: string, hoursAgo: number, category = "marketing", status = "sent") => sql`
      INSERT INTO messages (id, tenant_id, sandbox, contact_id, channel, direction, category, origin, status, created_at)
      VALUES (${randomUUID()}, ${m.tenant.tenant_id}, false, ${contactId}, 'email', 'outbound', ${category}, 'api', ${status},
        now() - make_interval(hours => ${hoursAgo}))`
    await earlier(capped.id, 1)
    // What does not count: a marketing email 17 h ago, a utility one and a skipped one an hour ago.
    await earlier(olderOnly.id, 17)
    await earlier(olderOnly.id, 1, "utility")
    await sql`INSERT INTO messages (id, tenant_id, sandbox, contact_id, channel, direction, category, origin, status, skip_reason, created_at)
      VALUES (${randomUUID()}, ${m.tenant.tenant_id}, false, ${olderOnly.id}, 'email', 'outbound', 'marketing', 'api', 'skipped', 'opted_out', now() - interval '1 hour')`
    expect(await send(b, capped.id)).toMatchObject({ status: "skipped", skip_reason: "frequency_cap" })
    expect(await send(b, olderOnly.id)).toMatchObject({ status: "queued", skip_reason: null })

    await earlier(uncapped.id, 1)
    await sql`INSERT INTO tenant_settings (tenant_id, marketing_cap_hours) VALUES (${m.tenant.tenant_id}, 0)
      ON CONFLICT (tenant_id) DO UPDATE SET marketing_cap_hours = 0`
    try {
      expect(await send(b, uncapped.id)).toMatchObject({ status: "queued", skip_reason: null })
    } finally {
      await sql`UPDATE tenant_settings SET marketing_cap_hours = NULL WHERE tenant_id = ${m.tenant.tenant_id}`
    }
  })

  it("holds inside quiet hours in the hotel's zone when the recipient row names none, in UTC when the zone is unknown", async () => {
    // A window around the current hour in Madrid (the test tenant's hotel); in UTC it may or may not hold.
    const madridHour = Math.floor((wallOf(Date.now(), "Europe/Madrid") % 86_400_000) / 3_600_000)
    const pad = (h: number) => `${String(((h % 24) + 24) % 24).padStart(2, "0")}:00`
    const window = { from: pad(madridHour - 1), to: pad(madridHour + 2) }
    const b = await insertBroadcast(sql, m.tenant, { definition: spring, quiet_hours: window, hotel_id: m.tenant.hotel_id })
    const [inHotelZone, unknownZone] = [await guest(["spring"]), await guest(["spring"])]
    await insertRecipient(sql, m.tenant, b, unknownZone.id, "Mars/Olympus_Mons")
    const expected = (zone: string) => quietHoursEnd(Date.now(), window, zone)
    const held = await send(b, inHotelZone.id)
    expect(held).toMatchObject({ status: "queued", skip_reason: null })
    expect((await stored(held.message_id))!.not_before?.getTime()).toBe(expected("Europe/Madrid"))
    // In UTC the window may hold now (Madrid one hour ahead in winter) or not (two hours ahead in summer).
    const other = await send(b, unknownZone.id)
    const utcHeld = isQuiet(Date.now(), window, "UTC")
    expect((await stored(other.message_id))!.not_before?.getTime() ?? null).toBe(utcHeld ? expected("UTC") : null)
    expect(expected("UTC")).not.toBe(expected("Europe/Madrid"))
  })

  it("skips every recipient once the send deadline has passed", async () => {
    const b = await insertBroadcast(sql, m.tenant, { definition: spring, send_deadline: new Date(Date.now() - 60_000) })
    const c = await guest(["spring"])
    expect(await send(b, c.id)).toMatchObject({ status: "skipped", skip_reason: "deadline_passed" })
  })

  it("skips every recipient of a cancelled broadcast, and of one that does not exist, as cancelled", async () => {
    const b = await insertBroadcast(sql, m.tenant, { definition: spring, status: "cancelled" })
    const c = await guest(["spring"])
    expect(await send(b, c.id)).toMatchObject({ status: "skipped", skip_reason: "cancelled" })
    const missing = randomUUID()
    expect(await send(missing, c.id)).toMatchObject({ status: "skipped", skip_reason: "cancelled" })
    // Nothing of these left for the guest.
    await new Promise((r) => setTimeout(r, 300))
    expect(m.sink.mails.some((mail) => mail.to.includes(c.email!))).toBe(false)
  })
  it("records a send the account can no longer make (its WhatsApp channel gone) as skipped with the refusal's code, so the broadcast settles", async () => {
    const b = await insertBroadcast(sql, m.tenant, { definition: spring })
    const c = await guest(["spring"])
    const outcome = await actor.send(m.tenant, {
      ...broadcastSend(b, c.id), message_id: broadcastMessageId(b, c.id, "whatsapp"), channel: "whatsapp", category: undefined,
      subject: undefined, text: undefined, template: { name: "spring_offer", language: "es", parameters: ["Ana"] }
    })
    expect(outcome).toMatchObject({ status: "skipped", skip_reason: "channel_not_configured", is_new: true })
    expect(await stored(outcome.message_id)).toMatchObject({ status: "skipped", skip_reason: "channel_not_configured", broadcast_id: b })
  })
})
