import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { createTenant, startPlatform, testSql, type RunningPlatform, type TestTenant } from "../support/platform.ts"
import { cdp, pageView, unique } from "./support.ts"

let platform: RunningPlatform
let tenant: TestTenant
let api: ReturnType<typeof cdp>
const sql = testSql()

beforeAll(async () => {
  platform = await startPlatform("cdp_identity")
  tenant = await createTenant("cdpid")
  api = cdp(platform.baseUrl, tenant.live_key)
  await api.settings({ visitor_tracking: true })
})
afterAll(async () => {
  await platform?.stop()
  await sql.end()
})

const eventsOf = (visitorId: string) =>
  sql`SELECT contact_id, ts FROM cdp_events WHERE tenant_id = ${tenant.tenant_id} AND visitor_id = ${visitorId} ORDER BY ts`
const email = () => `${unique("guest")}@hotel-guests.net`

describe("POST /api/v1/cdp/identify", () => {
  it("anonymous events then identify: the contact is created and the last 30 days are attached (older ones are not)", async () => {
    const visitor_id = unique("v")
    const session_id = unique("s")
    const old = new Date(Date.now() - 40 * 86_400_000).toISOString()
    expect((await api.events({ visitor_id, session_id, events: [pageView("/a", old), pageView("/b"), pageView("/c")] })).status).toBe(202)
    const who = email()
    const res = await api.identify({ visitor_id, session_id, email: who.toUpperCase(), first_name: "Ana" })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    expect(res.body.data).toMatchObject({ is_new: true, visitor_linked: true, visitor: "linked", backfilled_events: 2 })
    const contactId = res.body.data.contact_id
    const [contact] = await sql`SELECT email, first_name FROM contacts WHERE id = ${contactId}`
    expect(contact).toEqual({ email: who, first_name: "Ana" })
    expect((await eventsOf(visitor_id)).map((e) => e.contact_id)).toEqual([null, contactId, contactId])
    // Later events of the visitor carry the contact at once.
    await api.events({ visitor_id, session_id: unique("s"), events: [pageView("/d")] })
    expect((await eventsOf(visitor_id)).at(-1)!.contact_id).toBe(contactId)
    const again = await api.identify({ visitor_id, email: who })
    expect(again.body.data).toMatchObject({ contact_id: contactId, is_new: false, visitor: "already_linked", backfilled_events: 0 })
  })

  it("a second identity on the same device re-points the visitor without merging the contacts", async () => {
    const visitor_id = unique("v")
    await api.events({ visitor_id, session_id: unique("s"), events: [pageView("/one")] })
    const first = (await api.identify({ visitor_id, email: email() })).body.data
    await api.events({ visitor_id, session_id: unique("s"), events: [pageView("/two")] })
    const second = await api.identify({ visitor_id, phone: "+34 600 12 34 56" })
    expect(second.status, JSON.stringify(second.body)).toBe(200)
    expect(second.body.data).toMatchObject({ is_new: true, visitor: "reassigned" })
    expect(second.body.data.contact_id).not.toBe(first.contact_id)
    // The first contact keeps its history; both contacts still exist, neither merged.
    expect((await eventsOf(visitor_id)).map((e) => e.contact_id)).toEqual([first.contact_id, first.contact_id])
    const contacts = await sql`SELECT id, email, phone FROM contacts WHERE id IN (${first.contact_id}, ${second.body.data.contact_id})`
    expect(contacts.length).toBe(2)
    const [v] = await sql`SELECT contact_id FROM cdp_visitors WHERE tenant_id = ${tenant.tenant_id} AND visitor_id = ${visitor_id}`
    expect(v!.contact_id).toBe(second.body.data.contact_id)
    const kinds = await sql`SELECT kind, previous_contact_id FROM cdp_identity_events WHERE visitor_id = ${visitor_id} ORDER BY id`
    expect(kinds).toEqual([{ kind: "linked", previous_contact_id: null }, { kind: "reassigned", previous_contact_id: first.contact_id }])
    await api.events({ visitor_id, session_id: unique("s"), events: [pageView("/three")] })
    expect((await eventsOf(visitor_id)).at(-1)!.contact_id).toBe(second.body.data.contact_id)
  })

  it("refuses without a usable email or phone, naming the field", async () => {
    const none = await api.identify({ visitor_id: unique("v"), first_name: "Ana" })
    expect(none.status).toBe(400)
    expect(none.body.error.details).toHaveProperty("email")
    const bad = await api.identify({ visitor_id: unique("v"), email: "not-an-email" })
    expect(bad.status).toBe(422)
    expect(bad.body.error.details).toHaveProperty("email")
    const role = await api.identify({ visitor_id: unique("v"), email: "noreply@hotel-guests.net" })
    expect(role.status).toBe(422)
    expect(role.body.error.code).toBe("NOT_A_PERSON")
  })
})
