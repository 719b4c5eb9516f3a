import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { reservation } from "../support/fixtures.ts"
import { createTenant, request, startPlatform, testSql, type RunningPlatform, type TestTenant } from "../support/platform.ts"
import { ingressLastSeq } from "../support/streams.ts"

let platform: RunningPlatform
let tenant: TestTenant
const sql = testSql()

beforeAll(async () => {
  platform = await startPlatform("bad")
  tenant = await createTenant("bad")
})
afterAll(async () => {
  await platform?.stop()
  await sql.end()
})

const counts = async () => {
  const [r] = await sql`
    SELECT (SELECT count(*) FROM reservations WHERE tenant_id = ${tenant.tenant_id})::int AS reservations,
           (SELECT count(*) FROM contacts WHERE tenant_id = ${tenant.tenant_id})::int AS contacts,
           (SELECT count(*) FROM events WHERE tenant_id = ${tenant.tenant_id})::int AS events`
  return r
}

const guest = { first_name: "Ana", phone: "+34600000101" }
const valid = () => reservation({ hotel_code: tenant.hotel_code }, { guests: [guest] })
const many = (n: number, item: unknown) => Array.from({ length: n }, () => item)

const cases: Array<[string, () => { raw?: string; body?: unknown }, number, string, ReadonlyArray<string>]> = [
  ["malformed JSON", () => ({ raw: '{"reservation_id": "R1", ' }), 400, "VALIDATION_ERROR", ["(body)"]],
  ["a JSON array instead of an object", () => ({ body: [1, 2] }), 400, "VALIDATION_ERROR", ["(body)"]],
  ["wrong types", () => ({ body: { ...valid(), reservation_id: 17, amount: "cheap", guests: [{ first_name: true }] } }), 400,
    "VALIDATION_ERROR", ["reservation_id", "amount", "guests[0].first_name"]],
  ["missing required fields", () => ({ body: { hotel_code: "X" } }), 400, "VALIDATION_ERROR", ["reservation_id", "check_in", "check_out", "guests"]],
  ["an impossible date", () => ({ body: { ...valid(), check_in: "2026-02-30" } }), 400, "VALIDATION_ERROR", ["check_in"]],
  ["a date out of range", () => ({ body: { ...valid(), check_in: "0026-01-01", check_out: "3026-01-01" } }), 400, "VALIDATION_ERROR", ["check_in", "check_out"]],
  ["a timestamp without offset", () => ({ body: { ...valid(), external_created_at: "2026-01-01T10:00:00" } }), 400, "VALIDATION_ERROR", ["external_created_at"]],
  ["check_out before check_in", () => ({ body: { ...valid(), check_in: "2026-12-05", check_out: "2026-12-01" } }), 400, "VALIDATION_ERROR", ["check_out"]],
  ["a stay ending before it starts", () => ({ body: { ...valid(), stays: [{ start_date: "2026-12-03", end_date: "2026-12-01" }] } }), 400, "VALIDATION_ERROR", ["stays[0].end_date"]],
  ["21 guests", () => ({ body: { ...valid(), guests: many(21, guest) } }), 400, "VALIDATION_ERROR", ["guests"]],
  ["11 stays", () => ({ body: { ...valid(), stays: many(11, { start_date: "2026-12-01", end_date: "2026-12-02" }) } }), 400, "VALIDATION_ERROR", ["stays"]],
  ["101 extras", () => ({ body: { ...valid(), extras: many(101, { name: "x", amount: 1 }) } }), 400, "VALIDATION_ERROR", ["extras"]],
  ["an unknown status", () => ({ body: { ...valid(), status: "arrived" } }), 400, "VALIDATION_ERROR", ["status"]],
  ["an unknown board type", () => ({ body: { ...valid(), stays: [{ start_date: "2026-12-01", end_date: "2026-12-02", board_type: "XX" }] } }), 400, "VALIDATION_ERROR", ["stays[0].board_type"]],
  ["an over-long agency", () => ({ body: { ...valid(), agency: "a".repeat(201) } }), 400, "VALIDATION_ERROR", ["agency"]],
  ["an over-long document number", () => ({ body: { ...valid(), guests: [{ ...guest, document_number: "9".repeat(51) }] } }), 400, "VALIDATION_ERROR", ["guests[0].document_number"]],
  ["a bad currency", () => ({ body: { ...valid(), currency: "EURO" } }), 400, "VALIDATION_ERROR", ["currency"]],
  ["a non-UUID hotel_id", () => ({ body: { ...valid(), hotel_code: undefined, hotel_id: "h1" } }), 400, "VALIDATION_ERROR", ["hotel_id"]],
  ["no hotel reference", () => ({ body: { ...valid(), hotel_code: undefined } }), 400, "VALIDATION_ERROR", ["hotel_id"]],
  ["an unknown hotel code", () => ({ body: { ...valid(), hotel_code: "NOPE" } }), 422, "HOTEL_NOT_FOUND", ["hotel_code"]],
  ["an unknown hotel id", () => ({ body: { ...valid(), hotel_code: undefined, hotel_id: "00000000-0000-4000-8000-000000000000" } }), 422, "HOTEL_NOT_FOUND", ["hotel_id"]]
]

describe("bad input on POST /api/v1/reservations", () => {
  for (const [name, input, status, code, fields] of cases) {
    it(`refuses ${name} with ${status} ${code}, naming ${fields.join(", ")}, storing and publishing nothing`, async () => {
      const before = await counts()
      const seq = await ingressLastSeq(platform.config.namespace)
      const res = await request(platform.baseUrl, "POST", "/api/v1/reservations", { key: tenant.live_key, ...input() })
      expect(res.status).toBe(status)
      expect(res.body).toMatchObject({ success: false, error: { code, message: expect.any(String) } })
      for (const field of fields) expect(Object.keys(res.body.error.details)).toContain(field)
      expect(await ingressLastSeq(platform.config.namespace)).toBe(seq)
      expect(await counts()).toEqual(before)
    })
  }

  it("answers an unsupported content type and an unknown route in the core error shape", async () => {
    const text = await request(platform.baseUrl, "POST", "/api/v1/reservations", { key: tenant.live_key, raw: "{}", contentType: "text/plain" })
    expect(text.status).toBe(415)
    expect(text.body).toMatchObject({ success: false, error: { code: "UNSUPPORTED_MEDIA_TYPE" } })
    const missing = await request(platform.baseUrl, "GET", "/api/v1/nothing-here", { key: tenant.live_key })
    expect(missing.status).toBe(404)
    expect(missing.body).toMatchObject({ success: false, error: { code: "NOT_FOUND" } })
  })
})
