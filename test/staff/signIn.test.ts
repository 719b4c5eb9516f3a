import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { configureChannels, type MailingPlatform } from "../support/messaging.ts"
import { createKey, createTenant, request, testSql, type RunningPlatform, type TestTenant } from "../support/platform.ts"
import type { SmtpSink } from "../support/smtpSink.ts"
import { addStaff, asStaff, codeFor, signIn, staffEmail, staffPlatform } from "./support.ts"

const { key, start } = staffPlatform()
const sql = testSql()
let mailing: MailingPlatform
let sink: SmtpSink
let platform: RunningPlatform
let tenant: TestTenant
let other: TestTenant
let admin: string
let otherAdmin: string

beforeAll(async () => {
  mailing = await start(sql, "staff_signin")
  ;({ sink, platform, tenant } = mailing)
  other = await createTenant("staff-b")
  await configureChannels(sql, key, other, { email: { from_address: "desk@otherhotel.com", from_name: "Other Hotel" } })
  admin = (await createKey(tenant.tenant_id, ["staff:manage"])).key
  otherAdmin = (await createKey(other.tenant_id, ["staff:manage"])).key
}, 60_000)
afterAll(async () => {
  await mailing?.stop()
  await sql.end()
})

const post = (path: string, body: unknown) => request(platform.baseUrl, "POST", path, { body })

describe("staff sign-in by an emailed code", () => {
  it("emails a 6-digit code naming the account; the code signs in once and sets the session cookie", async () => {
    const email = staffEmail()
    await addStaff(platform.baseUrl, admin, email, "viewer")
    const before = sink.mails.length
    const asked = await post("/api/v1/staff/sign-in", { email: email.toUpperCase() })
    expect(asked.status).toBe(202)
    expect(asked.body).toEqual({ success: true, data: { status: "sent" } })
    const { code, mail } = await codeFor(sink, email, before)
    const tenantName = (await sql`SELECT name FROM tenants WHERE id = ${tenant.tenant_id}`)[0]!.name as string
    expect(mail.subject).toContain(tenantName)
    expect(mail.fromAddress).toBe("stay@hotelexample.com")
    const stored = await sql`SELECT code_hash FROM staff_sign_in_codes c JOIN staff_accounts a ON a.id = c.staff_id WHERE a.email = ${email}`
    expect(stored).toHaveLength(1)
    expect(Buffer.from(stored[0]!.code_hash as Buffer).toString("utf8")).not.toContain(code)
    const res = await post("/api/v1/staff/sign-in/verify", { email, code })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    expect(res.body.data).toMatchObject({ tenant_id: tenant.tenant_id, role: "viewer", staff: { email, role: "viewer" } })
    expect(res.body.data.staff.last_signed_in_at).not.toBeNull()
    const cookie = res.headers.get("set-cookie")!
    expect(cookie).toMatch(/^gep_staff_session=gss_[0-9A-Za-z]+; /)
    expect(cookie).toContain("HttpOnly")
    expect(cookie).toContain("SameSite=Strict")
    expect(cookie).toContain("Path=/")
    // The platform is reached at 127.0.0.1 here: a loopback host, no Secure (cookie.test.ts tests the rule itself).
    expect(cookie).not.toContain("Secure")
    // The table keeps the token's digest, never the token.
    const token = cookie.split(";")[0]!.split("=")[1]!
    const sessions = await sql`SELECT token_hash FROM staff_sessions s JOIN staff_accounts a ON a.id = s.staff_id WHERE a.email = ${email}`
    expect(sessions).toHaveLength(1)
    expect(Buffer.from(sessions[0]!.token_hash as Buffer).toString("utf8")).not.toContain(token)
    // Used: the same code again is refused.
    const again = await post("/api/v1/staff/sign-in/verify", { email, code })
    expect(again.status).toBe(422)
    expect(again.body.error.code).toBe("CODE_EXPIRED")
    expect(again.body.error.details.code).toBeDefined()
  })

  it("answers the same for an address that is nobody's staff, and sends nothing", async () => {
    const before = sink.mails.length
    const res = await post("/api/v1/staff/sign-in", { email: staffEmail("nobody") })
    expect(res.status).toBe(202)
    expect(res.body).toEqual({ success: true, data: { status: "sent" } })
    await new Promise((r) => setTimeout(r, 500))
    expect(sink.mails.length).toBe(before)
  })

  it("refuses a wrong code with 422 naming code and the attempts left; after 5 wrong tries the code is dead", async () => {
    const email = staffEmail()
    await addStaff(platform.baseUrl, admin, email, "operator")
    const before = sink.mails.length
    await post("/api/v1/staff/sign-in", { email })
    const { code } = await codeFor(sink, email, before)
    const wrong = code === "000000" ? "111111" : "000000"
    for (let left = 4; left >= 1; left--) {
      const res = await post("/api/v1/staff/sign-in/verify", { email, code: wrong })
      expect(res.status).toBe(422)
      expect(res.body.error).toMatchObject({ code: "INVALID_CODE", details: { attempts_left: left } })
      expect(res.body.error.details.code).toBeDefined()
    }
    expect((await post("/api/v1/staff/sign-in/verify", { email, code: wrong })).body.error.code).toBe("CODE_EXPIRED")
    expect((await post("/api/v1/staff/sign-in/verify", { email, code })).body.error.code).toBe("CODE_EXPIRED")
  })

  it("refuses an expired code (10 minutes)", async () => {
    const email = staffEmail()
    await addStaff(platform.baseUrl, admin, email, "viewer")
    const before = sink.mails.length
    await post("/api/v1/staff/sign-in", { email })
    const { code } = await codeFor(sink, email, before)
    await sql`UPDATE staff_sign_in_codes SET expires_at = now() - interval '1 second'
      WHERE staff_id IN (SELECT id FROM staff_accounts WHERE email = ${email})`
    const res = await post("/api/v1/staff/sign-in/verify", { email, code })
    expect(res.status).toBe(422)
    expect(res.body.error.code).toBe("CODE_EXPIRED")
  })

  it("refuses a malformed address with 422 naming email", async () => {
    const res = await post("/api/v1/staff/sign-in", { email: "not-an-address" })
    expect(res.status).toBe(422)
    expect(res.body.error.details.email).toBeDefined()
  })

  it("sends one code per account where the address is staff, each naming its account, each signing in to its own", async () => {
    const email = staffEmail("both")
    await addStaff(platform.baseUrl, admin, email, "viewer")
    await addStaff(platform.baseUrl, otherAdmin, email, "admin")
    const before = sink.mails.length
    await post("/api/v1/staff/sign-in", { email })
    await sink.waitFor(before + 2)
    const mails = sink.mails.slice(before).filter((m) => m.to.includes(email))
    expect(mails).toHaveLength(2)
    const fromOther = mails.find((m) => m.fromAddress === "desk@otherhotel.com")!
    const code = /\b(\d{6})\b/.exec(fromOther.subject)![1]!
    const res = await post("/api/v1/staff/sign-in/verify", { email, code })
    expect(res.body.data).toMatchObject({ tenant_id: other.tenant_id, role: "admin" })
  })

  it("signs out: the session ends and its cookie is cleared", async () => {
    const email = staffEmail()
    await addStaff(platform.baseUrl, admin, email, "viewer")
    const s = await signIn(platform.baseUrl, sink, email)
    expect((await asStaff(platform.baseUrl, s, "GET", "/api/v1/staff/me")).status).toBe(200)
    expect((await asStaff(platform.baseUrl, s, "POST", "/api/v1/staff/sign-out", { csrf: null })).status).toBe(403)
    const out = await asStaff(platform.baseUrl, s, "POST", "/api/v1/staff/sign-out")
    expect(out.status).toBe(204)
    expect(out.headers.get("set-cookie")).toMatch(/^gep_staff_session=; .*Max-Age=0/)
    const me = await asStaff(platform.baseUrl, s, "GET", "/api/v1/staff/me")
    expect(me.status).toBe(401)
    expect(me.body.error.code).toBe("UNAUTHORIZED")
    expect((await asStaff(platform.baseUrl, s, "GET", "/api/v1/contacts")).status).toBe(401)
  })
})
