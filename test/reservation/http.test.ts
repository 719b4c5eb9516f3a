import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { e164, phone, reservation, uniqueId } from "../support/fixtures.ts"
import { outboxMessages } from "../support/outbox.ts"
import { createTenant, post, request, startPlatform, testSql, type RunningPlatform, type TestTenant } from "../support/platform.ts"

let platform: RunningPlatform
let tenant: TestTenant
const sql = testSql()

beforeAll(async () => {
  platform = await startPlatform("resv")
  tenant = await createTenant("resv")
})
afterAll(async () => {
  await platform?.stop()
  await sql.end()
})

const upsert = (body: unknown, key = tenant.live_key) => post(platform.baseUrl, "/api/v1/reservations", key, body)
const hotel = () => ({ hotel_code: tenant.hotel_code })

describe("POST /api/v1/reservations", () => {
  it("creates with 201, then updates with 200 keeping the same ids", async () => {
    const body = reservation(hotel())
    const first = await upsert(body)
    expect(first.status).toBe(201)
    expect(first.body.success).toBe(true)
    expect(first.body.data.is_new).toBe(true)
    expect(first.body.data.external_reservation_id).toBe(body.reservation_id)
    expect(first.body.data.hotel_id).toBe(tenant.hotel_id)
    expect(first.body.data.event_type).toBe("booking.created")
    expect(first.body.data.contacts[0].is_new).toBe(true)

    const second = await upsert({ ...body, amount: 310.5 })
    expect(second.status).toBe(200)
    expect(second.body.data.is_new).toBe(false)
    expect(second.body.data.reservation_id).toBe(first.body.data.reservation_id)
    expect(second.body.data.contacts[0].contact_id).toBe(first.body.data.contacts[0].contact_id)
    expect(second.body.data.contacts[0].is_new).toBe(false)
    expect(second.body.data.event_type).toBe("booking.updated")
    expect(second.body.data.event_id).not.toBe(first.body.data.event_id)

    const rows = await sql`SELECT count(*)::int AS n FROM reservations WHERE external_id = ${body.reservation_id}`
    expect(rows[0]!.n).toBe(1)
    const events = await sql`SELECT id, type FROM events WHERE reservation_id = ${first.body.data.reservation_id} ORDER BY created_at`
    expect(events.map((e) => e.type)).toEqual(["booking.created", "booking.updated"])
    expect(events.map((e) => e.id)).toEqual([first.body.data.event_id, second.body.data.event_id])
  })

  it("resolves the hotel by id, code or case-insensitive name", async () => {
    const byId = await upsert(reservation({ hotel_id: tenant.hotel_id }))
    const byCode = await upsert(reservation({ hotel_code: tenant.hotel_code }))
    const byName = await upsert(reservation({}, { hotel_name: tenant.hotel_name.toUpperCase() }))
    for (const r of [byId, byCode, byName]) {
      expect(r.status).toBe(201)
      expect(r.body.data.hotel_id).toBe(tenant.hotel_id)
    }
  })

  it("answers contacts in guest order, with null ids and false flags for a guest who is no contact", async () => {
    const p = phone(4242)
    const r = await upsert(reservation(hotel(), {
      guests: [
        { first_name: "Child", pax_type: "child" },
        { first_name: "Ana", phone: p, email: "Ana.Garcia@Gmail.com", is_holder: true },
        { first_name: "Bo", email: "bo@gmail.com" }
      ]
    }))
    expect(r.status).toBe(201)
    const [child, ana, bo] = r.body.data.contacts
    expect(child).toEqual({ contact_id: null, phone: null, email: null, is_new: false, is_holder: false })
    expect(ana).toMatchObject({ phone: e164(4242), email: "ana.garcia@gmail.com", is_holder: true, is_new: true })
    expect(bo).toMatchObject({ phone: null, email: "bo@gmail.com", is_holder: false, is_new: true })
    const guests = await sql`
      SELECT g.position, g.contact_id, g.first_name FROM reservation_guests g
      JOIN reservations r ON r.id = g.reservation_id WHERE r.id = ${r.body.data.reservation_id} ORDER BY position`
    expect(guests.map((g) => g.first_name)).toEqual(["Child", "Ana", "Bo"])
    expect(guests[0]!.contact_id).toBeNull()
    const links = await sql`SELECT count(*)::int AS n FROM contact_hotels WHERE hotel_id = ${tenant.hotel_id} AND contact_id = ANY(${[ana.contact_id, bo.contact_id]}::uuid[])`
    expect(links[0]!.n).toBe(2)
  })

  it("matches an existing contact by phone first, then by email", async () => {
    const p = phone(5151)
    const first = await upsert(reservation(hotel(), { guests: [{ first_name: "Eva", phone: p, email: "eva@gmail.com" }] }))
    const byPhone = await upsert(reservation(hotel(), { guests: [{ first_name: "Eva", phone: p.replace(/ /g, "-") }] }))
    const byEmail = await upsert(reservation(hotel(), { guests: [{ first_name: "Eva", email: "EVA@gmail.com " }] }))
    const id = first.body.data.contacts[0].contact_id
    expect(byPhone.body.data.contacts[0]).toMatchObject({ contact_id: id, is_new: false })
    expect(byEmail.body.data.contacts[0]).toMatchObject({ contact_id: id, is_new: false })
  })

  it("computes nights from the dates and warns that a sent value is ignored", async () => {
    const r = await upsert(reservation(hotel(), { check_in: "2026-03-28", check_out: "2026-04-02", nights: 9 }))
    expect(r.body.data.nights).toBe(5)
    expect(r.body.data.warnings).toContainEqual(expect.objectContaining({ field: "nights", code: "ignored" }))
  })

  it("maps each status to its guest stage and emits booking.cancelled on cancellation", async () => {
    const stages: Record<string, string> = {
      confirmed: "pre-arrival", pending: "pre-arrival", modified: "pre-arrival", checked_in: "in-house",
      checked_out: "post-stay", cancelled: "none", no_show: "none"
    }
    for (const [status, stage] of Object.entries(stages)) {
      const r = await upsert(reservation(hotel(), { status }))
      expect(r.body.data.guest_stage).toBe(stage)
    }
    const body = reservation(hotel())
    await upsert(body)
    const cancelled = await upsert({ ...body, status: "cancelled" })
    expect(cancelled.body.data.event_type).toBe("booking.cancelled")
    const again = await upsert({ ...body, status: "cancelled" })
    // The same body resent changes nothing: no event, so no journey starts twice.
    expect(again.status).toBe(200)
    expect(again.body.data.event_type).toBeNull()
    expect(again.body.data.event_id).toBeNull()
    const changed = await upsert({ ...body, status: "cancelled", amount: 99 })
    expect(changed.body.data.event_type).toBe("booking.updated")
  })

  it("keeps guest links when an update sends guests: [], and skips an unknown reservation without guests", async () => {
    const body = reservation(hotel())
    const created = await upsert(body)
    const updated = await upsert({ ...body, guests: [], status: "checked_in" })
    expect(updated.status).toBe(200)
    expect(updated.body.data.guest_stage).toBe("in-house")
    const guests = await sql`SELECT contact_id FROM reservation_guests WHERE reservation_id = ${created.body.data.reservation_id}`
    expect(guests.map((g) => g.contact_id)).toEqual([created.body.data.contacts[0].contact_id])

    const unknownId = uniqueId("NOPE")
    const skipped = await upsert(reservation(hotel(), { reservation_id: unknownId, guests: [] }))
    expect(skipped.status).toBe(200)
    expect(skipped.body).toMatchObject({ success: true, data: { skipped: "no_guests_no_existing_reservation", external_reservation_id: unknownId } })
    const none = await sql`SELECT 1 FROM reservations WHERE external_id = ${unknownId}`
    expect(none.length).toBe(0)
  })

  it("leaves fields that an update does not send untouched and replaces stays and extras when sent", async () => {
    const body = reservation(hotel(), {
      confirmation_number: "LOC-1", amount: 500, currency: "eur", agency: "Booking.com",
      stays: [{ start_date: "2026-12-01", end_date: "2026-12-04", room_type: "DBL", board_type: "BB", adults: 2 }],
      extras: [{ name: "Parking", amount: 20 }]
    })
    await upsert(body)
    const { confirmation_number: _c, amount: _a, currency: _cur, agency: _ag, stays: _s, ...partial } = body
    await upsert({ ...partial, extras: [{ name: "Spa", amount: 50, quantity: 2 }] })
    const got = await request(platform.baseUrl, "GET", `/api/v1/reservations/${body.reservation_id}`, { key: tenant.live_key })
    expect(got.status).toBe(200)
    expect(got.body.data).toMatchObject({
      confirmation_number: "LOC-1", amount: 500, currency: "EUR", agency: "Booking.com",
      stays: [expect.objectContaining({ room_type: "DBL", board_type: "BB", adults: 2 })],
      extras: [{ name: "Spa", amount: 50, quantity: 2 }]
    })
  })

  it("normalises addresses: alpha-3 to alpha-2, truncation and drops reported, omitted sub-fields untouched", async () => {
    const p = phone(777)
    const first = await upsert(reservation(hotel(), {
      guests: [{ first_name: "Li", phone: p, address: { street: "x".repeat(310), city: "Madrid", country: "ESP" } }]
    }))
    expect(first.status).toBe(201)
    expect(first.body.data.warnings).toContainEqual(expect.objectContaining({ field: "guests[0].address.street", code: "truncated" }))
    const second = await upsert(reservation(hotel(), {
      guests: [{ first_name: "Li", phone: p, address: { postal_code: "28001", country: "Narnia" } }]
    }))
    expect(second.status).toBe(201)
    expect(second.body.data.warnings).toContainEqual(expect.objectContaining({ field: "guests[0].address.country", code: "dropped" }))
    const malformed = await upsert(reservation(hotel(), { guests: [{ first_name: "Li", phone: p, address: "Calle Mayor 1" }] }))
    expect(malformed.status).toBe(201)
    expect(malformed.body.data.warnings).toContainEqual(expect.objectContaining({ field: "guests[0].address", code: "dropped" }))

    const [contact] = await sql`SELECT address FROM contacts WHERE id = ${first.body.data.contacts[0].contact_id}`
    expect(contact!.address).toEqual({ street: "x".repeat(300), city: "Madrid", country: "ES", postal_code: "28001" })
  })

  it("stores consent, pre-check-in and profile fields, and records every consent claim", async () => {
    const r = await upsert(reservation(hotel(), {
      guests: [{
        first_name: "Mia", phone: phone(8080), email_consent: true, whatsapp_marketing_consent: false,
        pre_checkin_completed_at: "2026-11-30T18:00:00+01:00", pre_checkin_source: "web", nationality: "deu",
        gender: "female", date_of_birth: "1990-02-28", document_type: "passport", document_number: "X123", language: "DE"
      }]
    }))
    expect(r.status).toBe(201)
    const id = r.body.data.contacts[0].contact_id
    const [c] = await sql`SELECT email_consent, whatsapp_marketing_consent, nationality, gender, language, to_char(date_of_birth, 'YYYY-MM-DD') AS dob FROM contacts WHERE id = ${id}`
    expect(c).toEqual({ email_consent: true, whatsapp_marketing_consent: false, nationality: "DE", gender: "female", language: "de", dob: "1990-02-28" })
    const claims = await sql`SELECT channel, granted, source FROM consent_records WHERE contact_id = ${id} ORDER BY channel`
    expect(claims.map((x) => [x.channel, x.granted, x.source])).toEqual([["email", true, "reservation:pms"], ["whatsapp", false, "reservation:pms"]])
    const [g] = await sql`SELECT pre_checkin_completed_at, pre_checkin_source FROM reservation_guests WHERE contact_id = ${id}`
    expect((g!.pre_checkin_completed_at as Date).toISOString()).toBe("2026-11-30T17:00:00.000Z")
    expect(g!.pre_checkin_source).toBe("web")
  })

  it("records a consent claim again only when it changes or another source states it; re-sends leave the hotel link as it is", async () => {
    const guest = { first_name: "Rea", phone: phone(8181), email_consent: true }
    const body = reservation(hotel(), { source: "pms", guests: [guest] })
    const id = (await upsert(body)).body.data.contacts[0].contact_id
    const [linked] = await sql`SELECT xmin::text AS version, last_seen_at FROM contact_hotels WHERE contact_id = ${id}`
    await upsert({ ...body, amount: 12 })
    await upsert({ ...body, amount: 13 })
    const claims = async () => (await sql`SELECT granted, source FROM consent_records WHERE contact_id = ${id} AND channel = 'email' ORDER BY id`)
      .map((x) => `${x.granted}:${x.source}`)
    expect(await claims()).toEqual(["true:reservation:pms"])
    // Seen again within the hour: the same row version, not a rewrite per re-send.
    expect(await sql`SELECT xmin::text AS version, last_seen_at FROM contact_hotels WHERE contact_id = ${id}`).toEqual([linked])
    await upsert({ ...body, amount: 14, guests: [{ ...guest, email_consent: false }] })
    await upsert(reservation(hotel(), { source: "booking_engine", guests: [{ ...guest, email_consent: false }] }))
    await upsert({ ...body, amount: 15, guests: [{ ...guest, email_consent: false }] })
    expect(await claims()).toEqual(["true:reservation:pms", "false:reservation:pms", "false:reservation:booking_engine", "false:reservation:pms"])
  })

  it("drops unusable phones and placeholder emails with warnings instead of refusing the reservation", async () => {
    const r = await upsert(reservation(hotel(), {
      guests: [{ first_name: "Zoe", phone: "12", email: "noreply@booking.com" }, { first_name: "Yan", phone: "+00000000" }]
    }))
    expect(r.status).toBe(201)
    expect(r.body.data.contacts[0].contact_id).toBeNull()
    expect(r.body.data.contacts[1].contact_id).toBeNull()
    const codes = r.body.data.warnings.map((w: { field: string; code: string }) => `${w.field}:${w.code}`)
    expect(codes).toEqual(expect.arrayContaining(["guests[0].phone:invalid_phone", "guests[0].email:not_a_person", "guests[1].phone:not_a_person"]))
  })

  it("emits outbox rows for the booking event and the new contact", async () => {
    const r = await upsert(reservation(hotel(), { guests: [{ first_name: "Outi", phone: phone(9191) }] }))
    const messages = await outboxMessages(platform.config.namespace, tenant.tenant_id)
    const rows = messages.filter((m) => m.id === r.body.data.event_id)
    expect(rows[0]!.subject).toBe(`${platform.config.namespace}.evt.booking.created`)
    const contactRows = messages.filter((m) => m.subject.endsWith("webhook.contact.created"))
    expect(contactRows.length).toBeGreaterThan(0)
  })
})
