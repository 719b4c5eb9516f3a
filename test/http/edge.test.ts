import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { request as httpRequest } from "node:http"
import { reservation, uniqueId } from "../support/fixtures.ts"
import {
  createCtiIntegration, createTenant, request, startPlatform, testSql, type RunningPlatform, type TestTenant
} from "../support/platform.ts"
import { ingressLastSeq } from "../support/streams.ts"

/**
 * The classes of issue 18 (NUL, unpaired surrogates, out-of-range numbers, deep free-form JSON, oversized bodies),
 * sent by hand to every kind of route: each answered 400 (or 413) in the core error shape naming the field, with
 * nothing published and no dead letter.
 */

let platform: RunningPlatform
let tenant: TestTenant
let ctiToken: string
let contactId: string
const sql = testSql()

beforeAll(async () => {
  platform = await startPlatform("edge")
  tenant = await createTenant("edge")
  ctiToken = (await createCtiIntegration(tenant.tenant_id, "aircall")).token
  const guest = await request(platform.baseUrl, "POST", "/api/v1/guests", {
    key: tenant.live_key, body: { phone: "+34600123456", first_name: "Edge", last_name: "Case" }
  })
  contactId = guest.body.data.contact_id
}, 60_000)
afterAll(async () => {
  await platform?.stop()
  await sql.end()
})

const DEEP = "@@deep@@"
/** JSON text with `DEEP` replaced by an object nested 5,000 levels (built as text: no recursion on our side). */
const encode = (body: unknown) =>
  JSON.stringify(body).replace(JSON.stringify(DEEP), '{"a":'.repeat(5_000) + "1" + "}".repeat(5_000))
const deadLetters = async () => (await sql`SELECT count(*)::int AS n FROM dead_letters`)[0]!.n as number

interface Case {
  readonly name: string
  readonly method: string
  readonly path: () => string
  readonly body?: () => unknown
  readonly cti?: boolean
  readonly status: number
  readonly field: string
}
const res = (overrides: Record<string, unknown>) => () => reservation({ hotel_code: tenant.hotel_code }, overrides)
const completed = (overrides: Record<string, unknown>) => () => ({
  event: "call_completed", call_id: uniqueId("call"), direction: "inbound", from: "+34600123458", to: "+34910000000",
  started_at: "2026-11-20T10:00:00Z", ended_at: "2026-11-20T10:04:05Z", ...overrides
})
const at = (path: string) => () => path

const cases: ReadonlyArray<Case> = [
  { name: "NUL in a reservation field", method: "POST", path: at("/api/v1/reservations"), body: res({ comments: "a\u0000b" }), status: 400, field: "comments" },
  { name: "NUL in a guest of a reservation", method: "POST", path: at("/api/v1/reservations"), body: res({ guests: [{ first_name: "A\u0000" }] }), status: 400, field: "guests[0].first_name" },
  { name: "NUL in a metadata key", method: "POST", path: at("/api/v1/reservations"), body: res({ metadata: { "k\u0000": 1 } }), status: 400, field: "metadata.k\\u0000" },
  { name: "an unpaired surrogate in a reservation", method: "POST", path: at("/api/v1/reservations"), body: res({ company: "x\ud800" }), status: 400, field: "company" },
  { name: "an unpaired surrogate in an address", method: "POST", path: at("/api/v1/reservations"), body: res({ guests: [{ first_name: "A", address: { city: "\udc00" } }] }), status: 400, field: "guests[0].address.city" },
  { name: "metadata 5,000 levels deep", method: "POST", path: at("/api/v1/reservations"), body: res({ metadata: DEEP }), status: 400, field: "metadata" },
  { name: "an amount out of range", method: "POST", path: at("/api/v1/reservations"), body: res({ amount: 1e300 }), status: 400, field: "amount" },
  { name: "a headcount out of range", method: "POST", path: at("/api/v1/reservations"), body: res({ stays: [{ start_date: "2026-12-01", end_date: "2026-12-02", adults: 5_000 }] }), status: 400, field: "stays[0].adults" },
  { name: "NUL in a batch item: refused on its own", method: "POST", path: at("/api/v1/reservations/batch"), body: () => ({ reservations: [res({ comments: "\u0000" })()] }), status: 200, field: "" },
  { name: "NUL in a path parameter", method: "GET", path: at("/api/v1/reservations/%00"), status: 400, field: "id" },
  { name: "NUL in a guest", method: "POST", path: at("/api/v1/guests"), body: () => ({ phone: "+34600123457", first_name: "A", last_name: "B\u0000" }), status: 400, field: "last_name" },
  { name: "NUL in a custom field value", method: "POST", path: at("/api/v1/guests"), body: () => ({ phone: "+34600123457", first_name: "A", last_name: "B", custom_fields: { x: "\u0000" } }), status: 400, field: "custom_fields.x" },
  { name: "NUL in a query parameter", method: "GET", path: at("/api/v1/guests?phone=%00"), status: 400, field: "phone" },
  { name: "NUL in an event payload key", method: "POST", path: at("/api/v1/events"), body: () => ({ event_type: "guest.message", payload: { "\u0000": 1 } }), status: 400, field: "payload.\\u0000" },
  { name: "an unpaired surrogate in an event payload", method: "POST", path: at("/api/v1/events"), body: () => ({ event_type: "guest.message", payload: { t: ["\ud800"] } }), status: 400, field: "payload.t[0]" },
  { name: "an event payload 5,000 levels deep", method: "POST", path: at("/api/v1/events"), body: () => ({ event_type: "guest.message", payload: DEEP }), status: 400, field: "payload" },
  { name: "an unpaired surrogate in a custom field label", method: "POST", path: at("/api/v1/fields"), body: () => ({ fields: [{ field_key: "a", field_label: "\ud800", field_type: "text" }] }), status: 400, field: "fields[0].field_label" },
  { name: "a display order out of range", method: "POST", path: at("/api/v1/fields"), body: () => ({ fields: [{ field_key: "a", field_label: "A", field_type: "text", display_order: 1e12 }] }), status: 400, field: "fields[0].display_order" },
  { name: "NUL in a webhook description", method: "POST", path: at("/api/v1/webhooks"), body: () => ({ url: "https://93.184.215.14/x", event_types: ["*"], enabled: false, description: "\u0000" }), status: 400, field: "description" },
  { name: "NUL in a webhook id", method: "GET", path: at("/api/v1/webhooks/%00/deliveries"), status: 400, field: "id" },
  { name: "an unpaired surrogate in click-to-call", method: "POST", path: () => `/api/contacts/${contactId}/call`, body: () => ({ agent: { id: "\ud800" } }), status: 400, field: "agent.id" },
  { name: "NUL in a call record id", method: "GET", path: at("/api/calls/%00"), status: 400, field: "call_record_id" },
  { name: "NUL in a CTI field", method: "POST", path: at("/api/webhooks/cti"), cti: true, body: () => ({ event_type: "call_missed", call_id: uniqueId("c"), note: "\u0000" }), status: 400, field: "note" },
  { name: "a CTI duration out of range", method: "POST", path: at("/api/webhooks/cti"), cti: true, body: completed({ duration_seconds: 1.2345678901234568e+29 }), status: 400, field: "duration_seconds" },
  { name: "a CTI hang-up duration out of range", method: "POST", path: at("/api/webhooks/cti"), cti: true, body: () => ({ event_type: "call_hangup", call_id: uniqueId("c"), duration: 1e29 }), status: 400, field: "duration" },
  { name: "a CTI record whose times span years", method: "POST", path: at("/api/webhooks/cti"), cti: true, body: completed({ ended_at: "2199-01-01T00:00:00Z" }), status: 400, field: "ended_at" },
  { name: "CTI metadata 5,000 levels deep", method: "POST", path: at("/api/webhooks/cti/aircall"), cti: true, body: completed({ metadata: DEEP }), status: 400, field: "(body)" },
  { name: "NUL in a CTI provider path parameter", method: "POST", path: at("/api/webhooks/cti/air%00call"), cti: true, body: completed({}), status: 400, field: "provider" }
]

describe("issue 18's classes, by hand", () => {
  for (const c of cases) {
    it(`${c.name}: ${c.status}${c.field ? ` naming ${c.field}` : ""}, nothing published, no dead letter`, async () => {
      const [seq, dead] = await Promise.all([ingressLastSeq(platform.config.namespace), deadLetters()])
      const r = await request(platform.baseUrl, c.method, c.path(), {
        key: c.cti ? ctiToken : tenant.live_key, ...(c.body ? { raw: encode(c.body()) } : {})
      })
      expect(r.status, JSON.stringify(r.body)).toBe(c.status)
      if (c.status === 200) {
        expect(r.body.data.results[0]).toMatchObject({ success: false, status: 400, error: { code: "VALIDATION_ERROR", details: { comments: expect.any(Array) } } })
      } else {
        expect(r.body).toMatchObject({ success: false, error: { code: "VALIDATION_ERROR", message: expect.any(String) } })
        expect(Object.keys(r.body.error.details)).toContain(c.field)
      }
      expect(await ingressLastSeq(platform.config.namespace)).toBe(seq)
      expect(await deadLetters()).toBe(dead)
    })
  }
})

/** A raw request through node:http, so the body can be streamed (chunked) or announced with any length. */
const rawPost = (path: string, headers: Record<string, string>, write: (send: (chunk: string) => boolean) => Promise<void>) =>
  new Promise<{ status: number; body: any; sent: number; ms: number }>((resolve, reject) => {
    const started = Date.now()
    let sent = 0
    const req = httpRequest(`${platform.baseUrl}${path}`, { method: "POST", headers: { authorization: `Bearer ${tenant.live_key}`, "content-type": "application/json", ...headers } }, (res) => {
      let text = ""
      res.on("data", (d) => (text += d))
      res.on("end", () => resolve({ status: res.statusCode!, body: JSON.parse(text), sent, ms: Date.now() - started }))
    })
    req.on("error", (e) => (sent > 0 ? undefined : reject(e)))
    void write((chunk) => {
      sent += chunk.length
      return req.write(chunk)
    }).then(() => req.end(), () => req.destroy())
  })

describe("body size limits", () => {
  const MB = 1024 * 1024
  const body10MB = JSON.stringify({ event_type: "guest.message", payload: { big: "x".repeat(10 * MB) } })

  it("refuses a 10 MB body announced by Content-Length with 413 before reading it", async () => {
    const before = await ingressLastSeq(platform.config.namespace)
    const r = await request(platform.baseUrl, "POST", "/api/v1/events", { key: tenant.live_key, raw: body10MB })
    expect(r.status).toBe(413)
    expect(r.body).toMatchObject({ success: false, error: { code: "PAYLOAD_TOO_LARGE", details: { max_bytes: 512 * 1024 } } })
    expect(await ingressLastSeq(platform.config.namespace)).toBe(before)
  })

  it("cuts a chunked 10 MB body off at the limit, never reading it whole", async () => {
    const r = await rawPost("/api/v1/events", { "transfer-encoding": "chunked" }, async (send) => {
      for (let i = 0; i < body10MB.length; i += 64 * 1024) {
        if (!send(body10MB.slice(i, i + 64 * 1024))) await new Promise((ok) => setTimeout(ok, 5))
      }
    })
    expect(r.status).toBe(413)
    expect(r.body).toMatchObject({ success: false, error: { code: "PAYLOAD_TOO_LARGE" } })
    // The server stopped reading (back-pressure held the rest here): measured about 640 KiB of the 10 MB sent.
    expect(r.sent).toBeLessThan(2 * MB)
  })

  it("takes a batch up to its own limit (5 MiB) and holds each item to the single limit", async () => {
    const item = reservation({ hotel_code: tenant.hotel_code }, { comments: "c".repeat(600 * 1024) })
    const r = await request(platform.baseUrl, "POST", "/api/v1/reservations/batch", { key: tenant.live_key, body: { reservations: [item] } })
    expect(r.status).toBe(200)
    expect(r.body.data.results[0]).toMatchObject({ success: false, status: 413, error: { code: "PAYLOAD_TOO_LARGE" } })
    const single = await request(platform.baseUrl, "POST", "/api/v1/reservations", { key: tenant.live_key, body: item })
    expect(single.status).toBe(413)
  })
})
