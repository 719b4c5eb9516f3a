import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { randomUUID } from "node:crypto"
import { e164, phone, reservation, uniqueId } from "../support/fixtures.ts"
import { outboxMessages } from "../support/outbox.ts"
import { createTenant, request, startPlatform, testSql, type RunningPlatform, type TestTenant } from "../support/platform.ts"
import { askRaw } from "../support/streams.ts"
import { B2bProtocol } from "../../actors/b2b/protocol.ts"

let platform: RunningPlatform
let tenant: TestTenant
let other: TestTenant
const sql = testSql()

beforeAll(async () => {
  platform = await startPlatform("b2bdeal")
  ;[tenant, other] = await Promise.all([createTenant("deal"), createTenant("deal-other")])
})
afterAll(async () => {
  await platform?.stop()
  await sql.end()
})

const as = (key: string, method: string, path: string, body?: unknown) => request(platform.baseUrl, method, path, body === undefined ? { key } : { key, body })
const api = (method: string, path: string, body?: unknown) => as(tenant.live_key, method, path, body)
const account = async (body: Record<string, unknown> = {}) => {
  const res = await api("POST", "/b2b/accounts", { type: "corporate", name: uniqueId("Acme"), ...body })
  expect(res.status, JSON.stringify(res.body)).toBe(201)
  return res.body.data.account_id as string
}
let seq = 7_000_000 + Math.floor(Math.random() * 1_000_000)

describe("contacts of accounts", () => {
  it("resolve to the platform's contact (the same person is the same contact), linked once per account", async () => {
    const acme = await account()
    const who = seq++
    const p = phone(who)
    const email = `${uniqueId("maria").toLowerCase()}@acme-example.es`
    const first = await api("POST", `/b2b/accounts/${acme}/contacts`, { first_name: "María", last_name: "Ruiz", phone: p, email, role: "travel_manager", is_primary: true })
    expect(first.status, JSON.stringify(first.body)).toBe(201)
    expect(first.body.data).toEqual({
      contact_id: expect.any(String), account_id: acme, is_new_contact: true, role: "travel_manager", title: null, is_primary: true, warnings: []
    })
    const contactId = first.body.data.contact_id
    // The guests API finds the same person by phone; a reservation's guest by email.
    const guest = await api("POST", "/api/v1/guests", { phone: p, first_name: "María", last_name: "Ruiz" })
    expect(guest.body.data.contact_id).toBe(contactId)
    const booked = await api("POST", "/api/v1/reservations", reservation({ hotel_code: tenant.hotel_code }, { guests: [{ first_name: "María", email }] }))
    expect(booked.body.data.contacts[0].contact_id).toBe(contactId)
    // Sending the person again updates the link (200); another account may link the same person.
    const again = await api("POST", `/b2b/accounts/${acme}/contacts`, { first_name: "María", email: email.toUpperCase(), title: "Head of travel" })
    expect(again.status).toBe(200)
    expect(again.body.data).toMatchObject({ contact_id: contactId, is_new_contact: false, role: "travel_manager", title: "Head of travel", is_primary: true })
    const sister = await account()
    expect((await api("POST", `/b2b/accounts/${sister}/contacts`, { first_name: "María", phone: p })).body.data.contact_id).toBe(contactId)
    const [people] = await sql`SELECT count(*)::int AS n FROM contacts WHERE tenant_id = ${tenant.tenant_id} AND (phone = ${e164(who)} OR email = ${email})`
    expect(people!.n).toBe(1)
    const created = (await outboxMessages(platform.config.namespace, tenant.tenant_id)).filter((m) => m.subject.endsWith("cmd.webhook.contact.created"))
    expect(created.some((m) => (m.payload as { data: { contact: { id: string } } }).data.contact.id === contactId)).toBe(true)
  })

  it("moves the primary flag, keeps role mailboxes out of persons (desk_emails), and refuses a role mailbox alone (422 NOT_A_PERSON)", async () => {
    const acme = await account()
    const a = await api("POST", `/b2b/accounts/${acme}/contacts`, { first_name: "A", phone: phone(seq++), is_primary: true })
    const b = await api("POST", `/b2b/accounts/${acme}/contacts`, { first_name: "B", phone: phone(seq++), email: "reservas@acme-desk.es", is_primary: true })
    expect(b.status).toBe(201)
    expect(b.body.data.warnings).toEqual([expect.objectContaining({ field: "email", code: "role_mailbox" })])
    const [person] = await sql`SELECT email FROM contacts WHERE id = ${b.body.data.contact_id}`
    expect(person!.email).toBeNull()
    const detail = (await api("GET", `/b2b/accounts/${acme}`)).body.data
    expect(detail.desk_emails).toEqual(["reservas@acme-desk.es"])
    expect(detail.contacts.map((c: { contact_id: string; is_primary: boolean }) => [c.contact_id, c.is_primary])).toEqual([
      [b.body.data.contact_id, true], [a.body.data.contact_id, false]
    ])
    const desk = await api("POST", `/b2b/accounts/${acme}/contacts`, { first_name: "Desk", email: "booking@acme-desk.es" })
    expect(desk.status).toBe(422)
    expect(desk.body.error).toMatchObject({ code: "NOT_A_PERSON", details: { email: [expect.any(String)] } })
    expect((await api("POST", `/b2b/accounts/${acme}/contacts`, { first_name: "X", phone: "12" })).body.error.details).toEqual({ phone: [expect.any(String)] })
    expect((await api("POST", `/b2b/accounts/${acme}/contacts`, { first_name: "X", email: "not-an-email" })).status).toBe(400)
    expect((await api("POST", `/b2b/accounts/${acme}/contacts`, { phone: phone(seq++) })).status).toBe(400)
    expect((await api("POST", `/b2b/accounts/${randomUUID()}/contacts`, { first_name: "X", phone: phone(seq++) })).status).toBe(404)
  })
})

describe("deals", () => {
  it("move through open stages; a won corporate-rate deal registers its rate codes on the account, and bookings on them attribute", async () => {
    const acme = await account()
    const rate = uniqueId("ACME")
    const created = await api("POST", "/b2b/deals", {
      account_id: acme, name: "ACME 2027 rate", type: "corporate_rate", stage: "qualified", hotel_ids: [tenant.hotel_id],
      arrival: "2027-01-01", departure: "2027-12-31", room_nights: 400, value: { amount: 48000, currency: "eur" }, rate_codes: [rate]
    })
    expect(created.status, JSON.stringify(created.body)).toBe(201)
    expect(created.body.data).toMatchObject({ account_id: acme, stage: "qualified", value: { amount: 48000, currency: "EUR" }, closed_at: null, rate_codes: [rate] })
    const dealId = created.body.data.deal_id
    for (const stage of ["proposal", "qualified", "negotiation"]) {
      expect((await api("PATCH", `/b2b/deals/${dealId}`, { stage })).body.data.stage).toBe(stage)
    }
    const won = await api("PATCH", `/b2b/deals/${dealId}`, { stage: "won", probability: 100 })
    expect(won.status, JSON.stringify(won.body)).toBe(200)
    expect(won.body.data).toMatchObject({ stage: "won", probability: 100, closed_at: expect.any(String) })
    const codes = (await api("GET", `/b2b/accounts/${acme}`)).body.data.codes.rate_codes
    expect(codes).toEqual([{ code: rate, hotel_id: tenant.hotel_id, valid_from: "2027-01-01", valid_to: "2027-12-31", deal_id: dealId }])
    const stay = reservation({ hotel_code: tenant.hotel_code }, { booking_date: "2027-03-01", stays: [{ start_date: "2027-04-01", end_date: "2027-04-03", rate_code: rate }] })
    await api("POST", "/api/v1/reservations", stay)
    const attribution = (await api("GET", `/api/v1/reservations/${stay.reservation_id}`)).body.data.attribution
    expect(attribution).toMatchObject({ account_id: acme, rule: "rate_code", matched: rate, deal_id: dealId })
    // Won is final.
    const reopened = await api("PATCH", `/b2b/deals/${dealId}`, { stage: "lost" })
    expect(reopened.status).toBe(422)
    expect(reopened.body.error).toMatchObject({ code: "DEAL_CLOSED", details: { stage: [expect.any(String)] } })
    const listed = await api("GET", `/b2b/deals?account_id=${acme}&stage=won`)
    expect(listed.body.data.deals.map((d: { deal_id: string }) => d.deal_id)).toEqual([dealId])
  })

  it("refuses to win a deal whose rate code another account holds (409 CODE_TAKEN), leaving the deal open", async () => {
    const rate = uniqueId("TAKEN")
    const holder = await account({ codes: { rate_codes: [{ code: rate }] } })
    const acme = await account()
    const deal = (await api("POST", "/b2b/deals", { account_id: acme, name: "Rate", type: "corporate_rate", stage: "negotiation", rate_codes: [rate] })).body.data
    const won = await api("PATCH", `/b2b/deals/${deal.deal_id}`, { stage: "won" })
    expect(won.status).toBe(409)
    expect(won.body.error).toMatchObject({ code: "CODE_TAKEN", details: { "rate_codes[0]": [`is registered to account ${holder}`], account_id: holder } })
    const [row] = await sql`SELECT stage, closed_at FROM b2b_deals WHERE id = ${deal.deal_id}`
    expect(row).toEqual({ stage: "negotiation", closed_at: null })
  })

  it("refuses bad input (400), unknown references (422), unknown or foreign deals (404)", async () => {
    const acme = await account()
    const base = { account_id: acme, name: "Offsite", type: "group", stage: "lead" }
    const schema = await api("POST", "/b2b/deals", { ...base, stage: "maybe", arrival: "2027-05-13", departure: "2027-05-10", value: { amount: -1, currency: "EURO" } })
    expect(schema.status).toBe(400)
    expect(Object.keys(schema.body.error.details).sort()).toEqual(["stage", "value.amount", "value.currency"])
    expect((await api("POST", "/b2b/deals", { ...base, arrival: "2027-05-13", departure: "2027-05-10" })).body.error.details).toHaveProperty("departure")
    const noAccount = await api("POST", "/b2b/deals", { ...base, account_id: randomUUID() })
    expect(noAccount.status).toBe(422)
    expect(noAccount.body.error).toMatchObject({ code: "ACCOUNT_NOT_FOUND", details: { account_id: ["no such account"] } })
    const noContact = await api("POST", "/b2b/deals", { ...base, contact_id: randomUUID() })
    expect(noContact.body.error).toMatchObject({ code: "CONTACT_NOT_FOUND" })
    const noHotel = await api("POST", "/b2b/deals", { ...base, hotel_ids: [randomUUID()] })
    expect(noHotel.body.error).toMatchObject({ code: "HOTEL_NOT_FOUND", details: { "hotel_ids[0]": [expect.any(String)] } })
    const deal = (await api("POST", "/b2b/deals", { ...base, arrival: "2027-05-10" })).body.data
    expect((await api("PATCH", `/b2b/deals/${deal.deal_id}`, { departure: "2027-05-01" })).body.error).toMatchObject({ code: "INVALID_DATES" })
    expect((await api("PATCH", `/b2b/deals/${deal.deal_id}`, { account_id: randomUUID() })).status).toBe(400)
    expect((await api("PATCH", `/b2b/deals/${randomUUID()}`, { stage: "won" })).status).toBe(404)
    expect((await as(other.live_key, "PATCH", `/b2b/deals/${deal.deal_id}`, { stage: "won" })).status).toBe(404)
    expect((await as(other.live_key, "GET", `/b2b/deals?account_id=${acme}`)).body.data.deals).toEqual([])
    expect((await api("GET", "/b2b/deals?stage=maybe")).status).toBe(400)
    expect((await api("GET", "/b2b/deals?account_id=x")).status).toBe(400)
    const [row] = await sql`SELECT stage, departure FROM b2b_deals WHERE id = ${deal.deal_id}`
    expect(row).toEqual({ stage: "lead", departure: null })
  })

  it("pages newest first without skipping or repeating", async () => {
    const acme = await account()
    for (let i = 0; i < 5; i++) await api("POST", "/b2b/deals", { account_id: acme, name: `D${i}`, type: "event", stage: "lead" })
    const seen: Array<string> = []
    let cursor: string | null = null
    do {
      const page: { body: { data: { deals: Array<{ name: string }>; next_cursor: string | null } } } =
        await api("GET", `/b2b/deals?account_id=${acme}&limit=2${cursor ? `&cursor=${cursor}` : ""}`)
      seen.push(...page.body.data.deals.map((d) => d.name))
      cursor = page.body.data.next_cursor
    } while (cursor)
    expect(seen).toEqual(["D4", "D3", "D2", "D1", "D0"])
  })
})

// The deprecated op-union message of the release before, for a rolling upgrade: remove in the release after this one.
describe("an `apply` envelope of the release before (an old ingress's)", () => {
  it("is answered in its old shape, with the result's op; a refusal is the refusal it always was", async () => {
    const acme = await account()
    const scope = { tenant_id: tenant.tenant_id, sandbox: false }
    const dealId = randomUUID()
    const deal = {
      contact_id: null, name: "Offsite", type: "event", stage: "lead", lost_reason: null, hotel_ids: [], arrival: null, departure: null, room_nights: null,
      value_amount: null, value_currency: null, probability: null, expected_close: null, rate_codes: [], external_id: null, owner_user_id: null
    } as const
    const created = await askRaw(platform.config, scope, B2bProtocol, "apply", { op: "create_deal", account_id: acme, deal_id: dealId, deal })
    expect(created.exit).toEqual({ _tag: "Success", value: { op: "deal", deal_id: dealId, account_id: acme, stage: "lead", registered_codes: [] } })
    const missing = await askRaw(platform.config, scope, B2bProtocol, "apply", { op: "update_deal", account_id: acme, deal_id: randomUUID(), set: { stage: "won" } })
    expect(missing.exit).toMatchObject({ _tag: "Failure", error: { _tag: "B2bRefused", code: "DEAL_NOT_FOUND" } })
    expect((await api("GET", `/b2b/deals?account_id=${acme}`)).body.data.deals).toMatchObject([{ name: "Offsite", stage: "lead" }])
  })
})
