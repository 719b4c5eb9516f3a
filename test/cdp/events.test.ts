import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { createKey, createTenant, startPlatform, testSql, type RunningPlatform, type TestTenant } from "../support/platform.ts"
import { cdp, pageView, unique } from "./support.ts"

let platform: RunningPlatform
let tenant: TestTenant
let api: ReturnType<typeof cdp>
const sql = testSql()

beforeAll(async () => {
  platform = await startPlatform("cdp_events")
  tenant = await createTenant("cdpev")
  api = cdp(platform.baseUrl, tenant.live_key)
})
afterAll(async () => {
  await platform?.stop()
  await sql.end()
})

const visit = (events: ReadonlyArray<unknown>, extra: Record<string, unknown> = {}) => ({
  visitor_id: unique("v"), session_id: unique("s"), device: { type: "mobile", browser: "Safari", os: "iOS", language: "es" },
  utm: { source: "google", medium: "cpc", campaign: "winter" }, referrer: "https://www.google.com/", events, ...extra
})

describe("CDP settings", () => {
  it("are off by default, PATCH changes only what is sent, domains lower-cased once each", async () => {
    const fresh = await createTenant("cdpset")
    const own = cdp(platform.baseUrl, fresh.live_key)
    expect((await own.settings()).body).toEqual({ success: true, data: { visitor_tracking: false, allowed_domains: [] } })
    const on = await own.settings({ visitor_tracking: true })
    expect(on.body.data).toEqual({ visitor_tracking: true, allowed_domains: [] })
    const domains = await own.settings({ allowed_domains: ["Hotel.com", "hotel.com", "book.other.es"] })
    expect(domains.body.data).toEqual({ visitor_tracking: true, allowed_domains: ["hotel.com", "book.other.es"] })
    const bad = await own.settings({ allowed_domains: ["https://hotel.com/x"] })
    expect(bad.status).toBe(400)
    expect(Object.keys(bad.body.error.details).join()).toContain("allowed_domains")
  })

  it("need cdp:write", async () => {
    const { key } = await createKey(tenant.tenant_id, ["guests:read"])
    expect((await cdp(platform.baseUrl, key).settings()).status).toBe(403)
    const { key: writer } = await createKey(tenant.tenant_id, ["cdp:write"])
    expect((await cdp(platform.baseUrl, writer).settings()).status).toBe(200)
  })
})

describe("POST /api/v1/cdp/events", () => {
  it("403 while visitor tracking is off, and nothing is stored", async () => {
    const fresh = await createTenant("cdpoff")
    const body = visit([pageView("https://hotel.com/rooms")])
    const res = await cdp(platform.baseUrl, fresh.live_key).events(body)
    expect(res.status).toBe(403)
    expect(res.body.error.message).toContain("Visitor tracking is off")
    expect((await sql`SELECT count(*)::int AS n FROM cdp_events WHERE visitor_id = ${body.visitor_id}`)[0]!.n).toBe(0)
  })

  it("202 { accepted }: stored per visitor and session with device and UTM, URL domain stripped, a retry stored once", async () => {
    await api.settings({ visitor_tracking: true, allowed_domains: [] })
    const body = visit([
      pageView("https://www.hotel.com/rooms/sea-view?lang=es#photos"),
      { type: "click", url: "/book", data: { button: "book-now" }, ts: new Date().toISOString() },
      { type: "scroll", ts: new Date().toISOString() }
    ])
    const res = await api.events(body)
    expect(res.status, JSON.stringify(res.body)).toBe(202)
    expect(res.body).toEqual({ success: true, data: { accepted: 3 } })
    expect((await api.events(body)).status).toBe(202)
    const rows = await sql`SELECT type, url, session_id, device, utm, referrer, contact_id FROM cdp_events WHERE tenant_id = ${tenant.tenant_id} AND visitor_id = ${body.visitor_id} ORDER BY id`
    expect(rows.map((r) => r.url)).toEqual(["/rooms/sea-view?lang=es#photos", "/book", null])
    expect(rows[0]).toMatchObject({ session_id: body.session_id, device: body.device, utm: body.utm, referrer: "https://www.google.com/", contact_id: null })
    const [session] = await sql`SELECT visitor_id, utm, device FROM cdp_sessions WHERE tenant_id = ${tenant.tenant_id} AND session_id = ${body.session_id}`
    expect(session).toMatchObject({ visitor_id: body.visitor_id, utm: body.utm, device: body.device })
  })

  it("1 to 100 events; unknown type and bad ts name their field", async () => {
    await api.settings({ visitor_tracking: true })
    expect((await api.events(visit([]))).status).toBe(400)
    const many = Array.from({ length: 101 }, () => pageView("/x"))
    const over = await api.events(visit(many))
    expect(over.status).toBe(400)
    expect(Object.keys(over.body.error.details)).toContain("events")
    expect((await api.events(visit(many.slice(0, 100)))).body.data.accepted).toBe(100)
    const bad = await api.events(visit([{ type: "hover", ts: "yesterday" }]))
    expect(bad.status).toBe(400)
    expect(Object.keys(bad.body.error.details).sort()).toEqual(["events[0].ts", "events[0].type"])
    expect((await api.events({ session_id: "s", events: [pageView("/")] })).body.error.details).toHaveProperty("visitor_id")
  })

  it("with allowed domains the Origin must be one of them or a subdomain", async () => {
    const fresh = await createTenant("cdporigin")
    const own = cdp(platform.baseUrl, fresh.live_key)
    await own.settings({ visitor_tracking: true, allowed_domains: ["hotel.com"] })
    const body = () => visit([pageView("/")])
    expect((await own.events(body(), "https://hotel.com")).status).toBe(202)
    expect((await own.events(body(), "https://book.hotel.com:8443")).status).toBe(202)
    const wrong = await own.events(body(), "https://evilhotel.com")
    expect(wrong.status).toBe(403)
    expect(wrong.body.error.details).toHaveProperty("origin")
    expect((await own.events(body())).status).toBe(403)
    expect((await own.events(body(), "null")).status).toBe(403)
    await own.settings({ allowed_domains: [] })
    expect((await own.events(body(), "https://anything.example")).status).toBe(202)
  })
})
