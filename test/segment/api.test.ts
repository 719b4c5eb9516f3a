import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { phone, reservation, uniqueId } from "../support/fixtures.ts"
import { createKey, createTenant, post, request, startPlatform, testSql, type RunningPlatform, type TestTenant } from "../support/platform.ts"

// The segments API against the real platform (HTTP, PostgreSQL with row-level security): saving, reading, changing
// and previewing definitions, each confined to the caller's account and mode.

let platform: RunningPlatform
let a: TestTenant
let b: TestTenant
const sql = testSql()

const as = (key: string, method: string, path: string, body?: unknown, headers?: Record<string, string>) =>
  request(platform.baseUrl, method, path, { key, body, ...(headers === undefined ? {} : { headers }) })

const language = (value: string | ReadonlyArray<string>) =>
  ({ version: 1, match: typeof value === "string" ? { field: "contact.language", op: "eq", value } : { field: "contact.language", op: "in", value } })

/** A guest in `t`'s account, created through a reservation (consent recorded as the PMS sends it). */
const guest = async (t: TestTenant, g: { language: string; email?: string; email_consent?: boolean; n: number }) => {
  const res = await post(platform.baseUrl, "/api/v1/reservations", t.live_key, reservation({ hotel_code: t.hotel_code }, {
    guests: [{ first_name: "Seg", last_name: `Ment${g.n}`, phone: phone(g.n), language: g.language, is_holder: true,
      ...(g.email === undefined ? {} : { email: g.email }), ...(g.email_consent === undefined ? {} : { email_consent: g.email_consent }) }]
  }))
  if (res.status >= 300) throw new Error(`fixture reservation failed: ${res.status} ${JSON.stringify(res.body)}`)
  return res.body.data.contacts[0].contact_id as string
}

// A real-looking domain: the ingestion drops addresses at reserved ones (example.com).
const mail = () => `${uniqueId("seg").toLowerCase()}@gmail.com`

beforeAll(async () => {
  platform = await startPlatform("segments")
  ;[a, b] = await Promise.all([createTenant("seg-a"), createTenant("seg-b")])
  // In A: three Catalan speakers (two with an email, one of them consenting), one Basque. In B: a Catalan speaker.
  await Promise.all([
    guest(a, { language: "ca", email: mail(), email_consent: true, n: 81_001 }),
    guest(a, { language: "ca", email: mail(), email_consent: false, n: 81_002 }),
    guest(a, { language: "ca", n: 81_003 }),
    guest(a, { language: "eu", email: mail(), email_consent: true, n: 81_004 }),
    guest(b, { language: "ca", email: mail(), email_consent: true, n: 81_005 })
  ])
}, 60_000)
afterAll(async () => {
  await platform?.stop()
  await sql.end()
})

describe("segments", () => {
  it("saves, lists, reads and changes a segment, the version as its ETag", async () => {
    const created = await as(a.live_key, "POST", "/api/v1/segments", { name: "Catalan speakers", definition: language("ca") })
    expect(created.status).toBe(201)
    expect(created.headers.get("etag")).toBe("\"v1\"")
    const id = created.body.data.segment_id as string
    expect(created.body.data).toEqual({
      segment_id: id, name: "Catalan speakers", description: null, definition: language("ca"), version: 1,
      created_at: expect.any(String), updated_at: expect.any(String)
    })
    expect((await as(a.live_key, "GET", `/api/v1/segments/${id}`)).body.data).toEqual(created.body.data)
    const list = await as(a.live_key, "GET", "/api/v1/segments?limit=100")
    expect(list.body.data.segments.map((s: { segment_id: string }) => s.segment_id)).toContain(id)
    expect(list.body.data.next_cursor).toBeNull()

    const stale = await as(a.live_key, "PATCH", `/api/v1/segments/${id}`, { name: "x" }, { "if-match": "\"v7\"" })
    expect(stale.status).toBe(412)
    const changed = await as(a.live_key, "PATCH", `/api/v1/segments/${id}`, { definition: language(["ca", "eu"]) }, { "if-match": "\"v1\"" })
    expect(changed.status).toBe(200)
    expect(changed.body.data).toMatchObject({ version: 2, name: "Catalan speakers", definition: language(["ca", "eu"]) })
    expect(changed.headers.get("etag")).toBe("\"v2\"")
    // A change that changes nothing keeps the version.
    expect((await as(a.live_key, "PATCH", `/api/v1/segments/${id}`, { definition: language(["ca", "eu"]) })).body.data.version).toBe(2)
  })

  it("refuses a definition that does not check with 422 naming the path in the tree; nothing saved", async () => {
    const before = (await sql`SELECT count(*)::int AS n FROM segments WHERE tenant_id = ${a.tenant_id}`)[0]!.n
    const unknownField = await as(a.live_key, "POST", "/api/v1/segments", {
      name: "bad", definition: { version: 1, match: { all: [language("ca").match, { field: "contact.shoe_size", op: "eq", value: "42" }] } }
    })
    expect(unknownField.status).toBe(422)
    expect(unknownField.body.error.code).toBe("VALIDATION_ERROR")
    expect(Object.keys(unknownField.body.error.details).join(" ")).toContain("definition.match.all[1]")
    const wrongOp = await as(a.live_key, "POST", "/api/v1/segments", {
      name: "bad", definition: { version: 1, match: { field: "contact.language", op: "gt", value: 3 } }
    })
    expect(wrongOp.status).toBe(422)
    expect(Object.keys(wrongOp.body.error.details).join(" ")).toContain("definition.match")
    // Two kinds in one node: refused, never one of them silently kept (an audience wider than the one written).
    const mixed = await as(a.live_key, "POST", "/api/v1/segments", {
      name: "bad", definition: { version: 1, match: { all: [language("ca").match], any: [language("eu").match] } }
    })
    expect(mixed.status).toBe(422)
    expect(Object.keys(mixed.body.error.details).join(" ")).toMatch(/definition\.match\.(all|any)/)
    let deep: unknown = language("ca").match
    for (let i = 0; i < 7; i++) deep = { not: deep }
    const tooDeep = await as(a.live_key, "POST", "/api/v1/segments", { name: "bad", definition: { version: 1, match: deep } })
    expect(tooDeep.status).toBe(422)
    const noName = await as(a.live_key, "POST", "/api/v1/segments", { definition: language("ca") })
    expect(noName.status).toBe(422)
    expect(noName.body.error.details).toHaveProperty("name")
    expect((await sql`SELECT count(*)::int AS n FROM segments WHERE tenant_id = ${a.tenant_id}`)[0]!.n).toBe(before)
  })

  it("previews who a definition matches: the count, the reachable per channel and a sample, in the caller's account only", async () => {
    const preview = await as(a.live_key, "POST", "/api/v1/segments/preview", { definition: language("ca") })
    expect(preview.status).toBe(200)
    expect(preview.body.data).toMatchObject({ count: 3, reachable: { email: 1, whatsapp: 0 }, category: "marketing" })
    expect(preview.body.data.sample).toHaveLength(3)
    const sample = [...preview.body.data.sample].sort((x: { last_name: string }, y: { last_name: string }) => x.last_name.localeCompare(y.last_name))
    expect(sample.map((c: { last_name: string; email: string | null }) => [c.last_name, c.email === null])).toEqual([
      ["Ment81001", false], ["Ment81002", false], ["Ment81003", true]
    ])
    expect(sample[0]).toEqual({ contact_id: expect.any(String), first_name: "Seg", last_name: "Ment81001", email: expect.stringMatching(/@gmail\.com$/), phone: "+34610081001", language: "ca" })
    // Utility messages need an address and no suppression, not consent.
    const utility = await as(a.live_key, "POST", "/api/v1/segments/preview", { definition: language("ca"), category: "utility" })
    expect(utility.body.data.reachable).toEqual({ email: 2, whatsapp: 3 })
    // B's Catalan speaker is B's.
    expect((await as(b.live_key, "POST", "/api/v1/segments/preview", { definition: language("ca") })).body.data.count).toBe(1)
    // The sandbox of A holds none of them.
    expect((await as(a.test_key, "POST", "/api/v1/segments/preview", { definition: language("ca") })).body.data.count).toBe(0)
  })

  it("previews a saved segment by id; exactly one of definition and segment_id", async () => {
    const saved = await as(a.live_key, "POST", "/api/v1/segments", { name: "Basque", definition: language("eu") })
    const id = saved.body.data.segment_id as string
    const preview = await as(a.live_key, "POST", "/api/v1/segments/preview", { segment_id: id })
    expect(preview.body.data).toMatchObject({ count: 1, reachable: { email: 1 } })
    expect((await as(a.live_key, "POST", "/api/v1/segments/preview", {})).status).toBe(400)
    expect((await as(a.live_key, "POST", "/api/v1/segments/preview", { segment_id: id, definition: language("eu") })).status).toBe(400)
    const unknown = await as(a.live_key, "POST", "/api/v1/segments/preview", { segment_id: "00000000-0000-4000-8000-000000000000" })
    expect(unknown.status).toBe(404)
    expect(unknown.body.error.details).toHaveProperty("segment_id")
  })

  it("types custom fields by their definition", async () => {
    const defined = await as(a.live_key, "POST", "/api/v1/fields", { fields: [{ field_key: "pillow", field_label: "Pillow", field_type: "select", options: ["soft", "firm"] }] })
    expect(defined.status).toBeLessThan(300)
    const ok = await as(a.live_key, "POST", "/api/v1/segments/preview", { definition: { version: 1, match: { field: "custom.pillow", op: "eq", value: "firm" } } })
    expect(ok.status).toBe(200)
    expect(ok.body.data.count).toBe(0)
    const wrong = await as(a.live_key, "POST", "/api/v1/segments/preview", { definition: { version: 1, match: { field: "custom.pillow", op: "gte", value: 2 } } })
    expect(wrong.status).toBe(422)
    const undefinedField = await as(a.live_key, "POST", "/api/v1/segments/preview", { definition: { version: 1, match: { field: "custom.nope", op: "eq", value: "x" } } })
    expect(undefinedField.status).toBe(422)
  })

  it("keeps each account's segments to itself and asks segments:write to write", async () => {
    const saved = await as(a.live_key, "POST", "/api/v1/segments", { name: "A's", definition: language("ca") })
    const id = saved.body.data.segment_id as string
    expect((await as(b.live_key, "GET", `/api/v1/segments/${id}`)).status).toBe(404)
    expect((await as(b.live_key, "PATCH", `/api/v1/segments/${id}`, { name: "taken" })).status).toBe(404)
    expect((await as(b.live_key, "POST", "/api/v1/segments/preview", { segment_id: id })).status).toBe(404)
    expect((await as(a.test_key, "GET", `/api/v1/segments/${id}`)).status).toBe(404)
    const listed = await as(b.live_key, "GET", "/api/v1/segments?limit=100")
    expect(listed.body.data.segments.map((s: { segment_id: string }) => s.segment_id)).not.toContain(id)
    expect((await as(a.live_key, "GET", `/api/v1/segments/${id}`)).body.data.name).toBe("A's")

    const reader = (await createKey(a.tenant_id, ["guests:read"])).key
    const write = await as(reader, "POST", "/api/v1/segments", { name: "r", definition: language("ca") })
    expect(write.status).toBe(403)
    expect(write.body.error.details.required_scope).toBe("segments:write")
    expect((await as(reader, "POST", "/api/v1/segments/preview", { segment_id: id })).status).toBe(200)
    const writer = (await createKey(a.tenant_id, ["segments:write"])).key
    expect((await as(writer, "POST", "/api/v1/segments", { name: "w", definition: language("ca") })).status).toBe(201)
  })
})
