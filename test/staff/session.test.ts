import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { e164 } from "../support/fixtures.ts"
import type { MailingPlatform } from "../support/messaging.ts"
import { createKey, createTenant, request, testSql, type RunningPlatform, type TestTenant } from "../support/platform.ts"
import type { SmtpSink } from "../support/smtpSink.ts"
import { addStaff, asStaff, signIn, staffEmail, staffPlatform, type StaffSession } from "./support.ts"

// A staff session on the whole API: CSRF, roles per endpoint, a viewer's masked reads, the audit log, expiry, removal
// and tenant isolation.

const { start } = staffPlatform()
const sql = testSql()
let mailing: MailingPlatform
let sink: SmtpSink
let platform: RunningPlatform
let tenant: TestTenant
let otherTenant: TestTenant
let manager: string
let viewer: StaffSession
let operator: StaffSession
let admin: StaffSession
let contact: { id: string; email: string; phone: string }

const url = () => platform.baseUrl

beforeAll(async () => {
  mailing = await start(sql, "staff_session")
  ;({ sink, platform, tenant } = mailing)
  otherTenant = await createTenant("staff-other")
  manager = (await createKey(tenant.tenant_id, ["staff:manage"])).key
  const emails = { viewer: staffEmail("viewer"), operator: staffEmail("operator"), admin: staffEmail("admin") }
  for (const [role, email] of Object.entries(emails)) await addStaff(url(), manager, email, role)
  ;[viewer, operator, admin] = await Promise.all([signIn(url(), sink, emails.viewer), signIn(url(), sink, emails.operator), signIn(url(), sink, emails.admin)])
  const email = `ana.${Date.now().toString(36)}@guestmail.com`
  const phone = e164(61_000_000 + Math.floor(Math.random() * 1_000_000))
  const guest = await request(url(), "POST", "/api/v1/guests", { key: tenant.live_key, body: { phone, email, first_name: "Ana", last_name: "Masked" } })
  expect(guest.status, JSON.stringify(guest.body)).toBeLessThan(300)
  contact = { id: guest.body.data.contact_id, email, phone }
}, 90_000)
afterAll(async () => {
  await mailing?.stop()
  await sql.end()
})

/** A failed delivery of a new, disabled subscription (the worker never calls out for it). */
const pastDelivery = async () => {
  const sub = await request(url(), "POST", "/api/v1/webhooks", {
    key: tenant.live_key, body: { url: "https://93.184.215.14/hooks/staff", event_types: ["broadcast.completed"], enabled: false }
  })
  const [row] = await sql`
    WITH e AS (
      INSERT INTO webhook_events (subscription_id, event_id, tenant_id, sandbox, event_type, body)
      VALUES (${sub.body.data.id}, gen_random_uuid()::text, ${tenant.tenant_id}, false, 'broadcast.completed', '{"event_id":"x"}')
      RETURNING event_id)
    INSERT INTO webhook_deliveries (id, subscription_id, tenant_id, sandbox, event_id, event_type, attempt, outcome, duration_ms)
    SELECT gen_random_uuid(), ${sub.body.data.id}, ${tenant.tenant_id}, false, e.event_id, 'broadcast.completed', 1, 'failed', 5 FROM e
    RETURNING id`
  return `/api/v1/webhooks/${sub.body.data.id}/deliveries/${row!.id}/resend`
}

describe("a staff session on the public API", () => {
  it("reads the tenant's live data with the cookie alone", async () => {
    const res = await asStaff(url(), operator, "GET", `/api/v1/contacts/${contact.id}`)
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    expect(res.body.data.email).toBe(contact.email)
    expect(res.headers.get("x-ratelimit-limit")).not.toBeNull()
  })

  it("needs the CSRF token on a write: missing or wrong 403 CSRF_TOKEN_INVALID, right accepted; a bearer request needs none", async () => {
    const path = await pastDelivery()
    for (const csrf of [null, "wrong"]) {
      const res = await asStaff(url(), operator, "POST", path, { csrf })
      expect(res.status).toBe(403)
      expect(res.body.error.code).toBe("CSRF_TOKEN_INVALID")
    }
    expect((await asStaff(url(), operator, "POST", path)).status).toBe(202)
    expect((await request(url(), "POST", path, { key: tenant.live_key })).status).toBe(202)
  })

  it("refuses a cookie request a browser marks cross-site, even a read", async () => {
    const res = await asStaff(url(), operator, "GET", "/api/v1/contacts", { headers: { "sec-fetch-site": "cross-site" } })
    expect(res.status).toBe(403)
    expect((await asStaff(url(), operator, "GET", "/api/v1/contacts", { headers: { "sec-fetch-site": "same-origin" } })).status).toBe(200)
  })

  it("refuses a viewer an operator action with 403 naming the role and the role needed; an operator resends", async () => {
    const path = await pastDelivery()
    const refused = await asStaff(url(), viewer, "POST", path)
    expect(refused.status).toBe(403)
    expect(refused.body.error).toMatchObject({ code: "FORBIDDEN", details: { role: "viewer", required_role: "operator" } })
    expect((await asStaff(url(), operator, "POST", path)).status).toBe(202)
    const write = await asStaff(url(), operator, "POST", "/api/v1/guests", { body: { phone: e164(62_000_001), first_name: "No" } })
    expect(write.status).toBe(403)
    expect(write.body.error.details).toMatchObject({ role: "operator", required_role: "admin" })
  })

  it("masks every email address and phone number a viewer reads, and only a viewer's", async () => {
    const res = await asStaff(url(), viewer, "GET", `/api/v1/contacts/${contact.id}`)
    expect(res.status).toBe(200)
    const text = JSON.stringify(res.body)
    expect(text).not.toContain(contact.email)
    expect(text).not.toContain(contact.phone)
    expect(text).not.toContain(contact.phone.slice(1))
    expect(res.body.data.email).toBe(`${contact.email.slice(0, 2)}***@guestmail.com`)
    expect(res.body.data.phone).toMatch(/^\+\d{2}\*+\d{3}$/)
    const list = await asStaff(url(), viewer, "GET", `/api/v1/contacts?email=${encodeURIComponent(contact.email)}`)
    expect(list.status).toBe(200)
    expect(list.body.data.contacts).toHaveLength(1)
    expect(JSON.stringify(list.body)).not.toContain(contact.email)
    // A search by name finds the guest with the address and number masked too.
    const byName = await asStaff(url(), viewer, "GET", "/api/v1/contacts?name=ana%20masked")
    expect(byName.status).toBe(200)
    expect(byName.body.data.contacts.map((c: any) => c.contact_id)).toEqual([contact.id])
    expect(byName.body.data.contacts[0]).toMatchObject({ email: `${contact.email.slice(0, 2)}***@guestmail.com`, phone: expect.stringMatching(/^\+\d{2}\*+\d{3}$/) })
    const timeline = await asStaff(url(), viewer, "GET", `/api/v1/contacts/${contact.id}/timeline`)
    expect(timeline.status).toBe(200)
    expect(JSON.stringify(timeline.body)).not.toContain(contact.email)
    expect((await asStaff(url(), operator, "GET", `/api/v1/contacts/${contact.id}`)).body.data.email).toBe(contact.email)
  })

  it("lets an admin manage staff and read the audit log; a viewer or operator is refused both", async () => {
    const added = await asStaff(url(), admin, "POST", "/api/v1/staff", { body: { email: staffEmail("new"), role: "viewer" } })
    expect(added.status, JSON.stringify(added.body)).toBe(201)
    const changed = await asStaff(url(), admin, "PATCH", `/api/v1/staff/${added.body.data.staff_id}`, { body: { role: "operator" } })
    expect(changed.body.data.role).toBe("operator")
    expect((await asStaff(url(), admin, "GET", "/api/v1/staff")).status).toBe(200)
    expect((await asStaff(url(), admin, "DELETE", `/api/v1/staff/${added.body.data.staff_id}`)).status).toBe(204)
    expect((await asStaff(url(), admin, "GET", "/api/v1/audit")).status).toBe(200)
    for (const s of [viewer, operator]) {
      for (const [method, path] of [["GET", "/api/v1/staff"], ["GET", "/api/v1/audit"], ["POST", "/api/v1/staff"], ["GET", "/api/v1/keys"]] as const) {
        const res = await asStaff(url(), s, method, path, method === "POST" ? { body: { email: staffEmail(), role: "viewer" } } : {})
        expect(res.status, `${method} ${path}`).toBe(403)
        expect(res.body.error.details.required_role).toBe("admin")
      }
    }
    // An admin session holds what an all-scope key holds, not privacy:write.
    const erase = await asStaff(url(), admin, "POST", "/api/v1/privacy/requests", { body: { type: "erase", subject: { email: "x@y.com" } } })
    expect(erase.status).toBe(403)
  })

  it("refuses an address already active: 409 STAFF_EXISTS", async () => {
    const email = staffEmail("twice")
    await addStaff(url(), manager, email, "viewer")
    const res = await request(url(), "POST", "/api/v1/staff", { key: manager, body: { email: email.toUpperCase(), role: "admin" } })
    expect(res.status).toBe(409)
    expect(res.body.error.code).toBe("STAFF_EXISTS")
    // staff:manage is not granted by `*`.
    expect((await request(url(), "GET", "/api/v1/staff", { key: tenant.live_key })).status).toBe(403)
  })

  it("writes the audit log: a contact opened by staff (collapsed within the window), actions and staff changes", async () => {
    await asStaff(url(), viewer, "GET", `/api/v1/contacts/${contact.id}`)
    await asStaff(url(), viewer, "GET", `/api/v1/contacts/${contact.id}/timeline`)
    await request(url(), "GET", `/api/v1/contacts/${contact.id}`, { key: tenant.live_key })
    const res = await asStaff(url(), admin, "GET", `/api/v1/audit?contact_id=${contact.id}&action=contact.viewed`)
    expect(res.status).toBe(200)
    const byViewer = res.body.data.entries.filter((e: any) => e.actor.id === viewer.staff_id)
    expect(byViewer).toHaveLength(1)
    expect(byViewer[0]).toMatchObject({ action: "contact.viewed", contact_id: contact.id, actor: { type: "staff" } })
    expect(byViewer[0].actor.email).toContain("viewer.")
    expect(res.body.data.entries.every((e: any) => e.actor.type === "staff")).toBe(true)
    const resent = await asStaff(url(), admin, "GET", `/api/v1/audit?action=webhook_delivery.resent&staff_id=${operator.staff_id}`)
    expect(resent.body.data.entries.length).toBeGreaterThan(0)
    expect(resent.body.data.entries[0].details).toHaveProperty("delivery_id")
    const byKey = await asStaff(url(), admin, "GET", "/api/v1/audit?action=webhook_delivery.resent")
    expect(byKey.body.data.entries.some((e: any) => e.actor.type === "api_key" && e.actor.email === null)).toBe(true)
    const signedIn = await asStaff(url(), admin, "GET", `/api/v1/audit?action=staff.signed_in&limit=1`)
    expect(signedIn.body.data.entries).toHaveLength(1)
    expect(signedIn.body.data.next_cursor).not.toBeNull()
    const bad = await asStaff(url(), admin, "GET", "/api/v1/audit?contact_id=nope")
    expect(bad.status).toBe(400)
    expect(bad.body.error.details.contact_id).toBeDefined()
  })

  it("ends a session idle 12 hours, or 7 days old, with 401", async () => {
    const email = staffEmail("idle")
    await addStaff(url(), manager, email, "viewer")
    const idle = await signIn(url(), sink, email)
    const old = await signIn(url(), sink, email)
    const hashOf = async (s: StaffSession) => (await sql`SELECT token_hash FROM staff_sessions WHERE token_hash = sha256(${s.cookie.split("=")[1]!}::bytea)`)[0]!.token_hash
    await sql`UPDATE staff_sessions SET last_seen_at = now() - interval '12 hours 1 minute' WHERE token_hash = ${await hashOf(idle)}`
    await sql`UPDATE staff_sessions SET created_at = now() - interval '7 days 1 minute' WHERE token_hash = ${await hashOf(old)}`
    for (const s of [idle, old]) expect((await asStaff(url(), s, "GET", "/api/v1/contacts")).status).toBe(401)
  })

  it("ends a removed member's sessions at once", async () => {
    const email = staffEmail("leaver")
    const id = await addStaff(url(), manager, email, "operator")
    const s = await signIn(url(), sink, email)
    expect((await asStaff(url(), s, "GET", "/api/v1/contacts")).status).toBe(200)
    expect((await request(url(), "DELETE", `/api/v1/staff/${id}`, { key: manager })).status).toBe(204)
    expect((await asStaff(url(), s, "GET", "/api/v1/contacts")).status).toBe(401)
    expect((await asStaff(url(), s, "GET", "/api/v1/staff/me")).status).toBe(401)
  })

  it("keeps a session to its tenant: another tenant's contacts and staff are 404", async () => {
    const otherKey = (await createKey(otherTenant.tenant_id, ["staff:manage"])).key
    const otherStaff = await addStaff(url(), otherKey, staffEmail("elsewhere"), "viewer")
    const guest = await request(url(), "POST", "/api/v1/guests", { key: otherTenant.live_key, body: { phone: e164(63_000_000 + Math.floor(Math.random() * 1_000_000)), first_name: "Bea", last_name: "Other" } })
    expect(guest.status, JSON.stringify(guest.body)).toBeLessThan(300)
    expect((await asStaff(url(), admin, "GET", `/api/v1/contacts/${guest.body.data.contact_id}`)).status).toBe(404)
    expect((await asStaff(url(), admin, "PATCH", `/api/v1/staff/${otherStaff}`, { body: { role: "admin" } })).status).toBe(404)
    expect((await asStaff(url(), admin, "DELETE", `/api/v1/staff/${otherStaff}`)).status).toBe(404)
    const list = await asStaff(url(), admin, "GET", "/api/v1/staff?limit=100")
    expect(list.body.data.staff.map((s: any) => s.staff_id)).not.toContain(otherStaff)
    const audit = await request(url(), "GET", "/api/v1/audit", { key: (await createKey(otherTenant.tenant_id, ["audit:read"])).key })
    expect(audit.body.data.entries.every((e: any) => e.actor.id !== viewer.staff_id)).toBe(true)
  })
})
