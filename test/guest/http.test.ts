import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Layer, ManagedRuntime } from "effect"
import { e164, phone, reservation, uniqueId } from "../support/fixtures.ts"
import { createTenant, post, request, startPlatform, testConfig, testSql, type RunningPlatform, type TestTenant } from "../support/platform.ts"
import { AppConfig } from "../../core/config/AppConfig.ts"
import { Database } from "../../core/db/Database.ts"
import { Tenancy } from "../../src/tenancy/Tenancy.ts"

let platform: RunningPlatform
let tenant: TestTenant
const sql = testSql()

beforeAll(async () => {
  platform = await startPlatform("guests")
  tenant = await createTenant("guests")
  await post(platform.baseUrl, "/api/v1/fields", tenant.live_key, {
    fields: [
      { field_key: "vip_level", field_label: "VIP level", field_type: "select", options: ["gold", "silver"] },
      { field_key: "allergies", field_label: "Allergies", field_type: "multiselect", options: ["nuts", "gluten"] },
      { field_key: "visits", field_label: "Visits", field_type: "number" },
      { field_key: "anniversary", field_label: "Anniversary", field_type: "date" }
    ]
  })
})
afterAll(async () => {
  await platform?.stop()
  await sql.end()
})

const guest = (body: unknown) => post(platform.baseUrl, "/api/v1/guests", tenant.live_key, body)
const person = (n: number, extra: Record<string, unknown> = {}) => ({ phone: phone(n), first_name: "Guest", last_name: `N${n}`, ...extra })

describe("POST /api/v1/guests", () => {
  it("creates a contact with 201, then updates it with 200, with the documented response", async () => {
    const created = await guest(person(1, { email: "G1@Gmail.com", tags: ["vip", "spa"], custom_fields: { vip_level: "gold", visits: 3 } }))
    expect(created.status).toBe(201)
    expect(created.body).toEqual({
      success: true,
      data: { contact_id: expect.any(String), is_new: true, hotel_id: null, reservation_id: null, event_id: null, message: "Guest created", warnings: [] }
    })
    const updated = await guest(person(1, { tags: ["newsletter"], custom_fields: { allergies: ["nuts"] } }))
    expect(updated.status).toBe(200)
    expect(updated.body.data).toMatchObject({ contact_id: created.body.data.contact_id, is_new: false, message: "Guest updated" })
    const [c] = await sql`SELECT email, tags, custom_fields, email_consent, whatsapp_marketing_consent, source FROM contacts WHERE id = ${created.body.data.contact_id}`
    expect(c).toEqual({
      email: "g1@gmail.com", tags: ["newsletter", "spa", "vip"], custom_fields: { vip_level: "gold", visits: 3, allergies: ["nuts"] },
      email_consent: false, whatsapp_marketing_consent: false, source: "guests:api"
    })
  })

  it("resolves the same guest sent through /reservations and /guests to one contact", async () => {
    const viaReservation = await post(platform.baseUrl, "/api/v1/reservations", tenant.live_key, reservation({ hotel_code: tenant.hotel_code }, {
      guests: [{ first_name: "Ines", phone: phone(2), email: "ines@gmail.com" }]
    }))
    const viaGuests = await guest(person(2, { first_name: "Ines" }))
    const viaEmail = await post(platform.baseUrl, "/api/v1/reservations", tenant.live_key, reservation({ hotel_code: tenant.hotel_code }, {
      guests: [{ first_name: "Ines", email: "INES@gmail.com" }]
    }))
    const id = viaReservation.body.data.contacts[0].contact_id
    expect(viaGuests.body.data).toMatchObject({ contact_id: id, is_new: false })
    expect(viaEmail.body.data.contacts[0].contact_id).toBe(id)
  })

  it("records an identity conflict (phone of one contact, email of another) and merges nothing", async () => {
    const a = await guest(person(3, { email: "owner-a@gmail.com" }))
    const b = await guest(person(4, { email: "owner-b@gmail.com" }))
    const clash = await guest(person(3, { email: "owner-b@gmail.com", first_name: "Clash" }))
    expect(clash.body.data.contact_id).toBe(a.body.data.contact_id)
    const rows = await sql`SELECT contact_id, other_contact_id, reason, phone, email, source FROM identity_conflicts WHERE contact_id = ${a.body.data.contact_id}`
    expect(rows).toEqual([{
      contact_id: a.body.data.contact_id, other_contact_id: b.body.data.contact_id, reason: "email_belongs_to_another_contact",
      phone: e164(3), email: "owner-b@gmail.com", source: "guests:api"
    }])
    const [ca] = await sql`SELECT email FROM contacts WHERE id = ${a.body.data.contact_id}`
    const [cb] = await sql`SELECT phone, email FROM contacts WHERE id = ${b.body.data.contact_id}`
    expect(ca!.email).toBe("owner-a@gmail.com")
    expect(cb).toEqual({ phone: e164(4), email: "owner-b@gmail.com" })
  })

  it("never makes a contact from a placeholder email, nor matches one by it", async () => {
    const viaReservation = await post(platform.baseUrl, "/api/v1/reservations", tenant.live_key, reservation({ hotel_code: tenant.hotel_code }, {
      guests: [{ first_name: "Desk", email: "reservations@hotel-agency.com" }, { first_name: "Desk2", email: "test@test.com" }]
    }))
    expect(viaReservation.body.data.contacts.map((c: { contact_id: string | null }) => c.contact_id)).toEqual([null, null])
    const viaGuests = await guest(person(5, { email: "noreply@booking.com" }))
    expect(viaGuests.status).toBe(201)
    expect(viaGuests.body.data.warnings).toContainEqual(expect.objectContaining({ field: "email", code: "not_a_person" }))
    const rows = await sql`SELECT count(*)::int AS n FROM contacts WHERE tenant_id = ${tenant.tenant_id} AND email IN ('reservations@hotel-agency.com', 'test@test.com', 'noreply@booking.com')`
    expect(rows[0]!.n).toBe(0)
    const placeholderPhone = await guest({ phone: "+00000000", first_name: "No", last_name: "Body" })
    expect(placeholderPhone.status).toBe(422)
    expect(placeholderPhone.body.error.code).toBe("NOT_A_PERSON")
  })

  it("fill_only_fields keeps an existing date_of_birth and address; other fields still update", async () => {
    const first = await guest(person(6, { date_of_birth: "1980-05-01", address: { city: "Madrid", country: "ES" } }))
    await guest(person(6, { first_name: "Renamed", date_of_birth: "1999-09-09", address: { city: "Sevilla", street: "Calle 1" }, fill_only_fields: ["date_of_birth", "address"] }))
    const [c] = await sql`SELECT first_name, to_char(date_of_birth, 'YYYY-MM-DD') AS dob, address FROM contacts WHERE id = ${first.body.data.contact_id}`
    expect(c).toEqual({ first_name: "Renamed", dob: "1980-05-01", address: { city: "Madrid", country: "ES" } })
    await guest(person(6, { date_of_birth: "1999-09-09" }))
    const [after] = await sql`SELECT to_char(date_of_birth, 'YYYY-MM-DD') AS dob FROM contacts WHERE id = ${first.body.data.contact_id}`
    expect(after!.dob).toBe("1999-09-09")
  })

  it("update_if_exists: false matches the contact and changes nothing", async () => {
    const first = await guest(person(7, { first_name: "Original" }))
    const second = await guest(person(7, { first_name: "Changed", update_if_exists: false }))
    expect(second.body.data).toMatchObject({ contact_id: first.body.data.contact_id, is_new: false, message: expect.stringContaining("not updated") })
    const [c] = await sql`SELECT first_name FROM contacts WHERE id = ${first.body.data.contact_id}`
    expect(c!.first_name).toBe("Original")
  })

  it("maps legacy consent fields and keeps consent_source and consent_timestamp as an audit record", async () => {
    const a = await guest(person(8, { communication_preferences: { marketing: true, utility: false }, consent_source: "web-form-12", consent_timestamp: "2026-11-01T10:00:00+01:00" }))
    const b = await guest(person(9, { opt_in_status: "opted_in", email_consent: true }))
    const [ca] = await sql`SELECT whatsapp_marketing_consent FROM contacts WHERE id = ${a.body.data.contact_id}`
    expect(ca!.whatsapp_marketing_consent).toBe(true)
    const audit = await sql`SELECT channel, granted, source, captured_at FROM consent_records WHERE contact_id = ${a.body.data.contact_id}`
    expect(audit.map((r) => [r.channel, r.granted, r.source, (r.captured_at as Date).toISOString()])).toEqual([["whatsapp", true, "web-form-12", "2026-11-01T09:00:00.000Z"]])
    const [cb] = await sql`SELECT whatsapp_marketing_consent, email_consent FROM contacts WHERE id = ${b.body.data.contact_id}`
    expect(cb).toEqual({ whatsapp_marketing_consent: true, email_consent: true })
  })

  it("creates the booking's reservation through the reservation actor, with companions, extras, channel mapping and booking.created", async () => {
    const rt = ManagedRuntime.make(Tenancy.layer.pipe(Layer.provideMerge(Database.layer), Layer.provide(Layer.succeed(AppConfig, AppConfig.of(testConfig("admin"))))))
    await rt.runPromise(Tenancy.use((t) => t.setChannelMapping(tenant.tenant_id, { code: "BKG", name: "Booking.com", type: "ota" })))
    await rt.dispose()
    const bookingId = uniqueId("BK")
    const res = await guest(person(10, {
      hotel_code: tenant.hotel_code,
      booking: {
        booking_id: bookingId, check_in: "2026-12-10", check_out: "2026-12-12", room_type: "DBL", board_type: "BB", rate_plan: "FLEX",
        booking_channel: "BKG", total_amount: 420, status: "CheckedIn",
        guests: [{ first_name: "Partner", email: "partner@gmail.com", pax_type: "Adult", relationship_to_holder: "spouse" }],
        extras: [{ name: "Parking", amount: 15 }]
      }
    }))
    expect(res.status).toBe(201)
    expect(res.body.data).toMatchObject({ hotel_id: tenant.hotel_id, reservation_id: expect.any(String), event_id: expect.any(String) })
    const stored = await request(platform.baseUrl, "GET", `/api/v1/reservations/${bookingId}`, { key: tenant.live_key })
    expect(stored.body.data).toMatchObject({
      booking_id: bookingId, status: "checked_in", guest_stage: "in-house", channel: "Booking.com", booking_channel_code: "BKG",
      channel_type: "ota", amount: 420, currency: "EUR", room_type: "DBL", rate_plan: "FLEX",
      extras: [{ name: "Parking", amount: 15, quantity: 1, notes: null }],
      stays: [expect.objectContaining({ room_type: "DBL", board_type: "BB", rate_code: "FLEX" })]
    })
    expect(stored.body.data.guests.map((g: { first_name: string; is_holder: boolean; contact_id: string | null; relationship_to_holder: string | null }) =>
      [g.first_name, g.is_holder, g.contact_id !== null, g.relationship_to_holder])).toEqual([["Guest", true, true, null], ["Partner", false, true, "spouse"]])
    expect(stored.body.data.guests[0].contact_id).toBe(res.body.data.contact_id)
    const [event] = await sql`SELECT type FROM events WHERE id = ${res.body.data.event_id}`
    expect(event!.type).toBe("booking.created")
  })

  it("trigger_event: false stores the booking without an event; reservation_id defaults to booking_id", async () => {
    const bookingId = uniqueId("BK")
    const res = await guest(person(11, { hotel_code: tenant.hotel_code, trigger_event: false, booking: { booking_id: bookingId, check_in: "2026-12-10", check_out: "2026-12-11", booking_channel: "UNMAPPED" } }))
    expect(res.body.data.event_id).toBeNull()
    const stored = await request(platform.baseUrl, "GET", `/api/v1/reservations/${bookingId}`, { key: tenant.live_key })
    expect(stored.body.data).toMatchObject({ channel: "UNMAPPED", booking_channel_code: "UNMAPPED", channel_type: null })
    const events = await sql`SELECT 1 FROM events WHERE reservation_id = ${res.body.data.reservation_id}`
    expect(events.length).toBe(0)
  })

  it("links the guest to a hotel by name or code and refuses an unknown one", async () => {
    const byName = await guest(person(12, { hotel_name: tenant.hotel_name }))
    expect(byName.body.data.hotel_id).toBe(tenant.hotel_id)
    const unknown = await guest(person(12, { hotel_code: "NOPE" }))
    expect(unknown.status).toBe(422)
    const links = await sql`SELECT 1 FROM contact_hotels WHERE contact_id = ${byName.body.data.contact_id} AND hotel_id = ${tenant.hotel_id}`
    expect(links.length).toBe(1)
  })

  it("refuses unknown custom field keys and values that do not fit their type, storing nothing", async () => {
    for (const [fields, key] of [[{ shoe_size: 42 }, "custom_fields.shoe_size"], [{ vip_level: "platinum" }, "custom_fields.vip_level"],
      [{ visits: "three" }, "custom_fields.visits"], [{ anniversary: "2026-02-30" }, "custom_fields.anniversary"], [{ allergies: "nuts" }, "custom_fields.allergies"]] as const) {
      const res = await guest(person(13, { custom_fields: fields }))
      expect(res.status).toBe(400)
      expect(Object.keys(res.body.error.details)).toEqual([key])
    }
    const rows = await sql`SELECT 1 FROM contacts WHERE tenant_id = ${tenant.tenant_id} AND phone = ${e164(13)}`
    expect(rows.length).toBe(0)
  })

  it("refuses wrong types and missing fields with per-field details", async () => {
    const res = await guest({ phone: 34600, first_name: "", tags: "vip", trigger_event: "yes" })
    expect(res.status).toBe(400)
    expect(Object.keys(res.body.error.details)).toEqual(expect.arrayContaining(["phone", "first_name", "last_name", "tags", "trigger_event"]))
    const badPhone = await guest({ phone: "12345", first_name: "A", last_name: "B" })
    expect(badPhone.status).toBe(400)
    expect(badPhone.body.error.details).toHaveProperty("phone")
  })
})

describe("500 concurrent guest upserts over 50 phones", () => {
  it("leave exactly 50 contacts", async () => {
    const t = await createTenant("g500")
    const results = await Promise.all(Array.from({ length: 500 }, (_, i) =>
      post(platform.baseUrl, "/api/v1/guests", t.live_key, person(50_000 + (i % 50), { tags: [`t${i % 7}`] }))))
    expect(results.every((r) => r.status === 200 || r.status === 201)).toBe(true)
    expect(results.filter((r) => r.status === 201).length).toBe(50)
    const [row] = await sql`SELECT count(*)::int AS n FROM contacts WHERE tenant_id = ${t.tenant_id}`
    expect(row!.n).toBe(50)
  }, 120_000)
})

describe("POST /api/v1/guests/batch and GET /api/v1/guests", () => {
  it("judges each item on its own, in order, and refuses more than 500", async () => {
    const res = await post(platform.baseUrl, "/api/v1/guests/batch", tenant.live_key, {
      guests: [person(20), { phone: "12345", first_name: "A", last_name: "B" }, person(20, { first_name: "Again" }), { first_name: "NoPhone" }]
    })
    expect(res.status).toBe(200)
    expect(res.body.data).toMatchObject({ total: 4, created: 1, updated: 1, failed: 2 })
    expect(res.body.data.results.map((r: { status: number }) => r.status)).toEqual([201, 400, 200, 400])
    const tooMany = await post(platform.baseUrl, "/api/v1/guests/batch", tenant.live_key, { guests: Array.from({ length: 501 }, (_, i) => person(i)) })
    expect(tooMany.status).toBe(400)
  })

  it("looks a contact up by phone with consent, tags, custom fields, hotels and reservations; 404 when absent", async () => {
    const created = await guest(person(21, { hotel_code: tenant.hotel_code, tags: ["x"], custom_fields: { visits: 1 }, email_consent: true, booking: { booking_id: uniqueId("BK"), check_in: "2026-12-01", check_out: "2026-12-02" } }))
    const found = await request(platform.baseUrl, "GET", `/api/v1/guests?phone=${encodeURIComponent(phone(21))}`, { key: tenant.live_key })
    expect(found.status).toBe(200)
    expect(found.body.data).toMatchObject({
      contact_id: created.body.data.contact_id, phone: e164(21), tags: ["x"], custom_fields: { visits: 1 },
      consent: { email: true, whatsapp_marketing: false, history: expect.any(Array) },
      hotels: [expect.objectContaining({ hotel_id: tenant.hotel_id })],
      reservations: [expect.objectContaining({ reservation_id: created.body.data.reservation_id, is_holder: true })]
    })
    const missing = await request(platform.baseUrl, "GET", `/api/v1/guests?phone=${encodeURIComponent(phone(22))}`, { key: tenant.live_key })
    expect(missing.status).toBe(404)
    expect(missing.body).toMatchObject({ success: false, error: { code: "NOT_FOUND" } })
  })
})
