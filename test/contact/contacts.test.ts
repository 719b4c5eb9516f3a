import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { phone, reservation, uniqueId } from "../support/fixtures.ts"
import { createKey, createTenant, post, request, startPlatform, testSql, type RunningPlatform, type TestTenant } from "../support/platform.ts"
import { expectReadShape } from "./support.ts"

let platform: RunningPlatform
let tenant: TestTenant
let other: TestTenant
const sql = testSql()

beforeAll(async () => {
  platform = await startPlatform("contacts")
  ;[tenant, other] = await Promise.all([createTenant("contacts"), createTenant("contacts-other")])
  await post(platform.baseUrl, "/api/v1/fields", tenant.live_key, {
    fields: [
      { field_key: "vip_level", field_label: "VIP level", field_type: "select", options: ["gold", "silver"] },
      { field_key: "visits", field_label: "Visits", field_type: "number" }
    ]
  })
})
afterAll(async () => {
  await platform?.stop()
  await sql.end()
})

const get = (path: string, key = tenant.live_key) => request(platform.baseUrl, "GET", path, { key })
const ok = async (path: string, key = tenant.live_key) => {
  const res = await get(path, key)
  expect(res.status, JSON.stringify(res.body)).toBe(200)
  expectReadShape(path, res.body)
  return res.body.data
}
const created = async (path: string, body: unknown, key = tenant.live_key) => {
  const res = await post(platform.baseUrl, path, key, body)
  expect(res.status, JSON.stringify(res.body)).toBeLessThan(300)
  return res.body.data
}
const randomPhone = () => phone(Math.floor(Math.random() * 80_000_000))
const address = (label: string) => `${uniqueId(label).toLowerCase()}@gmail.com`
/** A 400 naming exactly this parameter. */
const expectRefused = async (path: string, parameter: string) => {
  const res = await get(path)
  expect(res.status, JSON.stringify(res.body)).toBe(400)
  expect(res.body).toMatchObject({ success: false, error: { code: "VALIDATION_ERROR", details: { [parameter]: expect.any(Array) } } })
}

describe("GET /api/v1/contacts/{contact_id}", () => {
  it("answers the whole profile of a guest with consent, custom fields, tags, a hotel and a reservation", async () => {
    const p = randomPhone()
    const email = address("Profile")
    const guest = await created("/api/v1/guests", {
      phone: p, first_name: "Ana", last_name: "García", email: email.toUpperCase(), language: "es", nationality: "ES",
      address: { street: "Calle Mayor 1", city: "Madrid", country: "ES" }, tags: ["vip", "spa"],
      custom_fields: { vip_level: "gold", visits: 3 }, email_consent: true, consent_source: "front desk form",
      consent_timestamp: "2026-11-01T10:00:00Z", hotel_code: tenant.hotel_code
    })
    const booked = reservation({ hotel_code: tenant.hotel_code }, {
      check_in: "2030-01-10", check_out: "2030-01-12", guests: [{ first_name: "Ana", last_name: "García", phone: p, is_holder: true }]
    })
    await created("/api/v1/reservations", booked)

    const profile = await ok(`/api/v1/contacts/${guest.contact_id}`)
    expect(profile).toMatchObject({
      contact_id: guest.contact_id, phone: p.replace(/\s/g, ""), email, first_name: "Ana", last_name: "García", language: "es",
      nationality: "ES", address: { street: "Calle Mayor 1", city: "Madrid", country: "ES" }, tags: expect.arrayContaining(["vip", "spa"]),
      custom_fields: { vip_level: "gold", visits: 3 }, guest_stage: "pre-arrival", identity_conflicts: [],
      consent: {
        email: { granted: true, opted_out_at: null, suppressed: null },
        whatsapp: { granted: false, opted_out_at: null, suppressed: null }
      },
      hotels: [{ hotel_id: tenant.hotel_id, code: tenant.hotel_code, name: tenant.hotel_name }]
    })
    expect(profile.consent.history).toContainEqual(expect.objectContaining({
      channel: "email", granted: true, source: "front desk form", captured_at: "2026-11-01T10:00:00.000Z"
    }))
    expect(Date.parse(profile.created_at)).not.toBeNaN()
    expect(Date.parse(profile.updated_at)).toBeGreaterThanOrEqual(Date.parse(profile.created_at))
  })

  it("shows an opt-out, a suppression and an identity conflict recorded for the contact", async () => {
    const email = address("conflict")
    const first = await created("/api/v1/guests", { phone: randomPhone(), first_name: "One", last_name: "A", email })
    const second = await created("/api/v1/guests", { phone: randomPhone(), first_name: "Two", last_name: "B" })
    // The same email with the second contact's phone: recorded as a conflict, never merged.
    const phoneOfSecond = (await ok(`/api/v1/contacts/${second.contact_id}`)).phone
    await created("/api/v1/reservations", reservation({ hotel_code: tenant.hotel_code }, {
      guests: [{ first_name: "Two", last_name: "B", phone: phoneOfSecond, email, is_holder: true }]
    }))
    await sql`UPDATE contacts SET email_opted_out_at = '2026-11-02T00:00:00Z', email_consent = false WHERE id = ${first.contact_id}`
    await sql`INSERT INTO suppressions (tenant_id, sandbox, channel, address, reason) VALUES (${tenant.tenant_id}, false, 'email', ${email}, 'hard_bounce')`
    // A WhatsApp address is the phone without its "+".
    const phoneOfFirst = (await ok(`/api/v1/contacts/${first.contact_id}`)).phone as string
    await sql`INSERT INTO suppressions (tenant_id, sandbox, channel, address, reason) VALUES (${tenant.tenant_id}, false, 'whatsapp', ${phoneOfFirst.replace(/^\+/, "")}, 'blocked')`
    const profile = await ok(`/api/v1/contacts/${first.contact_id}`)
    expect(profile.consent.email).toMatchObject({ granted: false, opted_out_at: "2026-11-02T00:00:00.000Z", suppressed: { reason: "hard_bounce" } })
    expect(profile.consent.whatsapp.suppressed).toMatchObject({ reason: "blocked" })
    expect((await ok(`/api/v1/contacts/${second.contact_id}`)).consent).toMatchObject({ email: { suppressed: null }, whatsapp: { suppressed: null } })
    const [conflicts] = await sql`SELECT count(*)::int AS n FROM identity_conflicts WHERE contact_id = ${first.contact_id} OR other_contact_id = ${first.contact_id}`
    expect(conflicts!.n).toBeGreaterThan(0)
    expect(profile.identity_conflicts).toHaveLength(conflicts!.n)
    expect(profile.identity_conflicts[0]).toMatchObject({ other_contact_id: second.contact_id, reason: expect.any(String) })
  })

  it("is 400 naming contact_id for a malformed id, 404 for an unknown one, another tenant's, or the other mode's", async () => {
    await expectRefused("/api/v1/contacts/not-a-uuid", "contact_id")
    const unknown = await get("/api/v1/contacts/00000000-0000-4000-8000-000000000000")
    expect(unknown.status).toBe(404)
    expect(unknown.body).toMatchObject({ success: false, error: { code: "NOT_FOUND" } })
    const mine = await created("/api/v1/guests", { phone: randomPhone(), first_name: "Mine", last_name: "Only" })
    expect((await get(`/api/v1/contacts/${mine.contact_id}`, other.live_key)).status).toBe(404)
    expect((await get(`/api/v1/contacts/${mine.contact_id}`, tenant.test_key)).status).toBe(404)
    expect((await get(`/api/v1/contacts/${mine.contact_id}/timeline`, other.live_key)).status).toBe(404)
    expect((await get(`/api/v1/contacts/${mine.contact_id}/timeline`, tenant.test_key)).status).toBe(404)
    const sandboxed = await created("/api/v1/guests", { phone: randomPhone(), first_name: "Sand", last_name: "Box" }, tenant.test_key)
    expect((await get(`/api/v1/contacts/${sandboxed.contact_id}`)).status).toBe(404)
    expect((await ok(`/api/v1/contacts/${sandboxed.contact_id}`, tenant.test_key)).contact_id).toBe(sandboxed.contact_id)
  })

  it("needs guests:read", async () => {
    const narrow = await createKey(tenant.tenant_id, ["reservations:write"])
    expect((await get("/api/v1/contacts", narrow.key)).status).toBe(403)
  })
})

describe("GET /api/v1/contacts", () => {
  it("finds an email-only contact (a reservation guest without a phone) by ?email=, case-insensitively", async () => {
    const email = address("EmailOnly")
    await created("/api/v1/reservations", reservation({ hotel_code: tenant.hotel_code }, { guests: [{ first_name: "Eva", last_name: "Solo", email, is_holder: true }] }))
    const page = await ok(`/api/v1/contacts?email=${encodeURIComponent(`  ${email.toUpperCase()} `)}`)
    expect(page.contacts).toHaveLength(1)
    expect(page.contacts[0]).toMatchObject({ email, phone: null, first_name: "Eva" })
    expect(page.next_cursor).toBeNull()
    expect((await ok(`/api/v1/contacts?email=${encodeURIComponent(email)}`, other.live_key)).contacts).toEqual([])
    expect((await ok(`/api/v1/contacts?email=${encodeURIComponent(email)}`, tenant.test_key)).contacts).toEqual([])
  })

  it("matches a phone written in any format the ingestion accepts", async () => {
    const n = Math.floor(Math.random() * 80_000_000)
    const e164 = phone(n).replace(/\s/g, "")
    const guest = await created("/api/v1/guests", { phone: phone(n), first_name: "Formats", last_name: "Test" })
    const national = e164.slice(3)
    for (const written of [e164, `0034 ${national}`, `+34 ${national.slice(0, 3)}-${national.slice(3, 6)}.${national.slice(6)}`, `34${national}`, `(+34) ${national}`]) {
      const page = await ok(`/api/v1/contacts?phone=${encodeURIComponent(written)}`)
      expect(page.contacts.map((c: { contact_id: string }) => c.contact_id), written).toEqual([guest.contact_id])
    }
  })

  it("filters by tag, hotel_id and updated_since, newest updated_at first", async () => {
    const tag = uniqueId("tag")
    const a = await created("/api/v1/guests", { phone: randomPhone(), first_name: "A", last_name: "T", tags: [tag], hotel_code: tenant.hotel_code })
    const b = await created("/api/v1/guests", { phone: randomPhone(), first_name: "B", last_name: "T", tags: [tag] })
    const byTag = await ok(`/api/v1/contacts?tag=${encodeURIComponent(tag)}`)
    expect(byTag.contacts.map((c: { contact_id: string }) => c.contact_id)).toEqual([b.contact_id, a.contact_id])
    const byHotel = await ok(`/api/v1/contacts?tag=${encodeURIComponent(tag)}&hotel_id=${tenant.hotel_id}`)
    expect(byHotel.contacts.map((c: { contact_id: string }) => c.contact_id)).toEqual([a.contact_id])
    const since = new Date(Date.now() + 60_000).toISOString()
    expect((await ok(`/api/v1/contacts?tag=${encodeURIComponent(tag)}&updated_since=${since}`)).contacts).toEqual([])
    const before = new Date(Date.now() - 600_000).toISOString()
    expect((await ok(`/api/v1/contacts?tag=${encodeURIComponent(tag)}&updated_since=${before}`)).contacts).toHaveLength(2)
  })

  it("pages without skipping or repeating, and refuses a cursor of another list", async () => {
    const tag = uniqueId("page")
    const ids = new Set<string>()
    for (let i = 0; i < 7; i++) {
      ids.add((await created("/api/v1/guests", { phone: randomPhone(), first_name: `P${i}`, last_name: "Page", tags: [tag], email_consent: true, whatsapp_marketing_consent: true })).contact_id)
    }
    const seen: Array<string> = []
    let cursor: string | null = null
    let pages = 0
    do {
      const page: { contacts: Array<{ contact_id: string; updated_at: string }>; next_cursor: string | null } =
        await ok(`/api/v1/contacts?tag=${encodeURIComponent(tag)}&limit=3${cursor ? `&cursor=${cursor}` : ""}`)
      seen.push(...page.contacts.map((c) => c.contact_id))
      cursor = page.next_cursor
      pages++
    } while (cursor !== null && pages < 10)
    expect(seen).toHaveLength(7)
    expect(new Set(seen)).toEqual(ids)
    const timelineCursor = (await ok(`/api/v1/contacts/${seen[0]}/timeline?limit=1`)).next_cursor as string
    expect(timelineCursor).toEqual(expect.any(String))
    await expectRefused(`/api/v1/contacts?cursor=${timelineCursor}`, "cursor")
    const listCursor = (await ok(`/api/v1/contacts?tag=${encodeURIComponent(tag)}&limit=1`)).next_cursor as string
    await expectRefused(`/api/v1/contacts/${seen[0]}/timeline?cursor=${listCursor}`, "cursor")
  })

  it("refuses each malformed filter with 400 naming it", async () => {
    await expectRefused("/api/v1/contacts?phone=12", "phone")
    await expectRefused("/api/v1/contacts?phone=call%20me", "phone")
    await expectRefused("/api/v1/contacts?email=not-an-email", "email")
    await expectRefused("/api/v1/contacts?hotel_id=H-1", "hotel_id")
    await expectRefused("/api/v1/contacts?updated_since=yesterday", "updated_since")
    await expectRefused("/api/v1/contacts?updated_since=2026-11-01T10:00:00", "updated_since")
    await expectRefused("/api/v1/contacts?limit=0", "limit")
    await expectRefused("/api/v1/contacts?limit=101", "limit")
    await expectRefused("/api/v1/contacts?cursor=nope", "cursor")
    await expectRefused("/api/v1/contacts/00000000-0000-4000-8000-000000000000/timeline?limit=abc", "limit")
  })
})
