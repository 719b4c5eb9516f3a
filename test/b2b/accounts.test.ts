import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { createKey, createTenant, request, startPlatform, testSql, type RunningPlatform, type TestTenant } from "../support/platform.ts"

let platform: RunningPlatform
let tenant: TestTenant
let other: TestTenant
const sql = testSql()

beforeAll(async () => {
  // Four apply lanes (one per partition): writes of different accounts race in concurrent transactions.
  platform = await startPlatform("b2bacc", { overrides: { applyLanes: 4 } })
  ;[tenant, other] = await Promise.all([createTenant("b2b"), createTenant("b2b-other")])
})
afterAll(async () => {
  await platform?.stop()
  await sql.end()
})

let n = 0
const as = (key: string, method: string, path: string, body?: unknown) => request(platform.baseUrl, method, path, body === undefined ? { key } : { key, body })
const api = (method: string, path: string, body?: unknown) => as(tenant.live_key, method, path, body)
const unique = (prefix: string) => `${prefix}-${Date.now().toString(36)}-${n++}`
const create = async (body: Record<string, unknown>) => {
  const res = await api("POST", "/b2b/accounts", { type: "agency", name: unique("Agency"), ...body })
  expect(res.status, JSON.stringify(res.body)).toBe(201)
  return res.body.data as { account_id: string; depth: number; path: Array<string> }
}
const accountRows = async (tenantId: string) => (await sql`SELECT count(*)::int AS n FROM b2b_accounts WHERE tenant_id = ${tenantId}`)[0]!.n as number

describe("account hierarchy", () => {
  it("nests three levels, answers depth and path, and refuses a fourth (422 HIERARCHY_TOO_DEEP), storing nothing", async () => {
    const root = await create({ type: "consortium" })
    expect(root).toEqual({ account_id: expect.any(String), depth: 1, path: [root.account_id], warnings: [] })
    const mid = await create({ parent_id: root.account_id })
    const leaf = await create({ parent_id: mid.account_id })
    expect(leaf.depth).toBe(3)
    expect(leaf.path).toEqual([root.account_id, mid.account_id, leaf.account_id])
    const before = await accountRows(tenant.tenant_id)
    const deep = await api("POST", "/b2b/accounts", { type: "agency", name: "Too deep", parent_id: leaf.account_id, codes: { agency_codes: [unique("DEEP")] } })
    expect(deep.status).toBe(422)
    expect(deep.body).toMatchObject({ success: false, error: { code: "HIERARCHY_TOO_DEEP", details: { parent_id: [expect.any(String)], max_depth: 3 } } })
    expect(await accountRows(tenant.tenant_id)).toBe(before)

    const detail = await api("GET", `/b2b/accounts/${root.account_id}`)
    expect(detail.body.data.children).toEqual([expect.objectContaining({ account_id: mid.account_id, depth: 2 })])
  })

  it("refuses cycles: an account under itself or under its own descendant (422 HIERARCHY_CYCLE)", async () => {
    const root = await create({})
    const child = await create({ parent_id: root.account_id })
    const grandchild = await create({ parent_id: child.account_id })
    for (const parent of [root.account_id, grandchild.account_id]) {
      const res = await api("PATCH", `/b2b/accounts/${root.account_id}`, { parent_id: parent })
      expect(res.status, parent).toBe(422)
      expect(res.body.error).toMatchObject({ code: "HIERARCHY_CYCLE", details: { parent_id: [expect.any(String)] } })
    }
    const [row] = await sql`SELECT parent_id, depth FROM b2b_accounts WHERE id = ${root.account_id}`
    expect(row).toEqual({ parent_id: null, depth: 1 })
  })

  it("moves a subtree (paths of every descendant rewritten), refuses a move that would sink it below level three, and detaches with parent_id null", async () => {
    const a = await create({})
    const b = await create({ parent_id: a.account_id })
    const x = await create({})
    const y = await create({ parent_id: x.account_id })
    // x has two levels: under a (level 1) it reaches level 3; under b (level 2) it would reach level 4.
    const tooDeep = await api("PATCH", `/b2b/accounts/${x.account_id}`, { parent_id: b.account_id })
    expect(tooDeep.status).toBe(422)
    expect(tooDeep.body.error.code).toBe("HIERARCHY_TOO_DEEP")
    const moved = await api("PATCH", `/b2b/accounts/${x.account_id}`, { parent_id: a.account_id, name: "Moved" })
    expect(moved.status, JSON.stringify(moved.body)).toBe(200)
    expect(moved.body.data).toMatchObject({ name: "Moved", parent_id: a.account_id, depth: 2, path: [a.account_id, x.account_id] })
    const [yRow] = await sql`SELECT depth, path::text[] AS path FROM b2b_accounts WHERE id = ${y.account_id}`
    expect(yRow).toEqual({ depth: 3, path: [a.account_id, x.account_id, y.account_id] })
    const detached = await api("PATCH", `/b2b/accounts/${x.account_id}`, { parent_id: null })
    expect(detached.body.data).toMatchObject({ parent_id: null, depth: 1, path: [x.account_id] })
    const [yAfter] = await sql`SELECT depth, path::text[] AS path FROM b2b_accounts WHERE id = ${y.account_id}`
    expect(yAfter).toEqual({ depth: 2, path: [x.account_id, y.account_id] })
  })

  it("refuses a parent that is not an account of this tenant and mode (422 PARENT_NOT_FOUND)", async () => {
    const foreign = (await as(other.live_key, "POST", "/b2b/accounts", { type: "agency", name: "Foreign" })).body.data.account_id
    const sandboxRoot = (await as(tenant.test_key, "POST", "/b2b/accounts", { type: "agency", name: "Sandbox" })).body.data.account_id
    for (const parent of [foreign, sandboxRoot, "00000000-0000-4000-8000-000000000000"]) {
      const res = await api("POST", "/b2b/accounts", { type: "agency", name: "Orphan", parent_id: parent })
      expect(res.status).toBe(422)
      expect(res.body.error).toMatchObject({ code: "PARENT_NOT_FOUND", details: { parent_id: ["no such account"] } })
    }
  })
})

describe("codes", () => {
  it("are unique per tenant after normalisation (409 CODE_TAKEN naming the field, kind, code and holder)", async () => {
    const code = unique("vsol-mad")
    const holder = await create({ codes: { agency_codes: [code.toUpperCase()] } })
    const res = await api("POST", "/b2b/accounts", { type: "agency", name: "Copycat", codes: { promo_codes: ["P1"], agency_codes: ["X-1", `  ${code} `] } })
    expect(res.status).toBe(409)
    expect(res.body).toEqual({
      success: false,
      error: {
        code: "CODE_TAKEN", message: expect.any(String),
        details: { "codes.agency_codes[1]": [`is registered to account ${holder.account_id}`], kind: "agency_code", code: code.toUpperCase(), account_id: holder.account_id },
        request_id: res.headers.get("x-request-id")
      }
    })
    // Another tenant may use the same code.
    expect((await as(other.live_key, "POST", "/b2b/accounts", { type: "agency", name: "Elsewhere", codes: { agency_codes: [code] } })).status).toBe(201)
    // A rate code may be chain-wide for one account and hotel-specific for another; the same pair twice is taken.
    const rate = unique("RATE")
    await create({ codes: { rate_codes: [{ code: rate }] } })
    await create({ codes: { rate_codes: [{ code: rate, hotel_id: tenant.hotel_id }] } })
    const taken = await api("POST", "/b2b/accounts", { type: "corporate", name: "Third", codes: { rate_codes: [{ code: rate.toLowerCase(), hotel_id: tenant.hotel_id }] } })
    expect(taken.status).toBe(409)
    expect(taken.body.error.details).toMatchObject({ "codes.rate_codes[0].code": [expect.any(String)], kind: "rate_code" })
    // The external id and the IATA number are codes too.
    const ext = unique("OPERA-TA")
    await create({ external_id: ext })
    expect((await api("POST", "/b2b/accounts", { type: "agency", name: "Dup", external_id: ext })).status).toBe(409)
  })

  it("PATCH replaces each codes list sent, leaves the others, and GET ?code= finds the holder by any of its codes", async () => {
    const [a1, a2, p1] = [unique("AG"), unique("AG"), unique("PR")]
    const acc = await create({ codes: { agency_codes: [a1], promo_codes: [p1], iata: "7821 2345" }, email_domains: ["@ViajesSol.es"], desk_emails: ["Reservas@viajessol.es"] })
    const patched = await api("PATCH", `/b2b/accounts/${acc.account_id}`, { codes: { agency_codes: [a2] } })
    expect(patched.status, JSON.stringify(patched.body)).toBe(200)
    expect(patched.body.data.codes).toEqual({ agency_codes: [a2], promo_codes: [p1], rate_codes: [], iata: "7821 2345" })
    expect(patched.body.data).toMatchObject({ email_domains: ["viajessol.es"], desk_emails: ["reservas@viajessol.es"] })
    const byOld = await api("GET", `/b2b/accounts?code=${encodeURIComponent(a1)}`)
    expect(byOld.body.data.accounts).toEqual([])
    for (const q of [a2.toLowerCase(), p1, "78212345"]) {
      const found = await api("GET", `/b2b/accounts?code=${encodeURIComponent(q)}`)
      expect(found.status).toBe(200)
      expect(found.body.data.accounts.map((a: { account_id: string }) => a.account_id), q).toEqual([acc.account_id])
    }
    const cleared = await api("PATCH", `/b2b/accounts/${acc.account_id}`, { codes: null, email_domains: null })
    expect(cleared.body.data).toMatchObject({ codes: { agency_codes: [], promo_codes: [], rate_codes: [], iata: null }, email_domains: [] })
  })
})

describe("concurrent writes", () => {
  it("one of many racing creations holding the same code wins (the rest 409); mutual moves never make a cycle", async () => {
    const code = unique("RACE")
    const racers = await Promise.all(Array.from({ length: 8 }, (_, i) =>
      api("POST", "/b2b/accounts", { type: "agency", name: `Racer ${i}`, codes: { agency_codes: [code] } })))
    expect(racers.map((r) => r.status).sort()).toEqual([201, 409, 409, 409, 409, 409, 409, 409])
    const [held] = await sql`SELECT count(*)::int AS n FROM b2b_codes WHERE tenant_id = ${tenant.tenant_id} AND code = ${code.toUpperCase()}`
    expect(held!.n).toBe(1)
    for (let round = 0; round < 3; round++) {
      const [a, b] = await Promise.all([create({}), create({})])
      const moves = await Promise.all([
        api("PATCH", `/b2b/accounts/${a.account_id}`, { parent_id: b.account_id }),
        api("PATCH", `/b2b/accounts/${b.account_id}`, { parent_id: a.account_id })
      ])
      expect(moves.map((m) => m.status).sort()).toEqual([200, 422])
      const rows = await sql`SELECT id, parent_id, depth FROM b2b_accounts WHERE id IN (${a.account_id}, ${b.account_id}) ORDER BY depth`
      expect(rows.map((r) => r.depth)).toEqual([1, 2])
      expect(rows[0]!.parent_id).toBeNull()
    }
  })

  it("a subtree move racing a new account inside that subtree never leaves an account below level three or a stale path", async () => {
    for (let round = 0; round < 6; round++) {
      const [x, p] = await Promise.all([create({}), create({})])
      const y = await create({ parent_id: x.account_id })
      // Each is fine alone against the tree it started from; together they would put the new account at level four.
      const [moved, added] = await Promise.all([
        api("PATCH", `/b2b/accounts/${x.account_id}`, { parent_id: p.account_id }),
        api("POST", "/b2b/accounts", { type: "agency", name: "Z", parent_id: y.account_id })
      ])
      // Whichever is applied first wins; the other sees the tree it left and is refused.
      const outcome = `${moved.status}/${added.status}`
      expect(["200/422", "422/201"], outcome).toContain(outcome)
    }
    const stale = await sql`
      SELECT a.id FROM b2b_accounts a LEFT JOIN b2b_accounts p ON p.id = a.parent_id
      WHERE a.tenant_id = ${tenant.tenant_id}
        AND (a.depth > 3 OR (a.parent_id IS NULL AND a.path <> ARRAY[a.id]) OR (a.parent_id IS NOT NULL AND a.path <> p.path || a.id))`
    expect(stale).toEqual([])
  })
})

describe("tenant isolation and scopes", () => {
  it("another tenant, or the other mode, neither reads nor changes an account (404); a key without b2b:write is refused (403)", async () => {
    const acc = await create({ name: "Private" })
    for (const key of [other.live_key, tenant.test_key]) {
      expect((await as(key, "GET", `/b2b/accounts/${acc.account_id}`)).status).toBe(404)
      expect((await as(key, "PATCH", `/b2b/accounts/${acc.account_id}`, { name: "Hijacked" })).status).toBe(404)
      expect((await as(key, "POST", `/b2b/accounts/${acc.account_id}/contacts`, { first_name: "X", phone: "+34600000001" })).status).toBe(404)
      const listed = await as(key, "GET", "/b2b/accounts?limit=100")
      expect(listed.body.data.accounts.map((a: { account_id: string }) => a.account_id)).not.toContain(acc.account_id)
    }
    const [row] = await sql`SELECT name FROM b2b_accounts WHERE id = ${acc.account_id}`
    expect(row!.name).toBe("Private")
    const reader = (await createKey(tenant.tenant_id, ["b2b:read"])).key
    expect((await as(reader, "GET", `/b2b/accounts/${acc.account_id}`)).status).toBe(200)
    expect((await as(reader, "POST", "/b2b/accounts", { type: "agency", name: "No" })).status).toBe(403)
    const writer = (await createKey(tenant.tenant_id, ["b2b:write"])).key
    expect((await as(writer, "GET", `/b2b/accounts/${acc.account_id}`)).status).toBe(403)
  })
})

describe("bad input", () => {
  it("answers 400 in the core error shape naming every offending field, and stores nothing", async () => {
    const before = await accountRows(tenant.tenant_id)
    const schema = await api("POST", "/b2b/accounts", { name: "", type: "airline", parent_id: "nope", codes: { rate_codes: [{ code: "R", valid_from: "2026-05-01", valid_to: "2026-04-01" }] } })
    expect(schema.status).toBe(400)
    expect(schema.body.error.code).toBe("VALIDATION_ERROR")
    expect(Object.keys(schema.body.error.details).sort()).toEqual(["codes.rate_codes[0].valid_to", "name", "parent_id", "type"])
    const values = await api("POST", "/b2b/accounts", {
      name: "Values", type: "agency", email_domains: ["gmail.com", "not a domain"], desk_emails: ["nobody"], phone: "12", country: "Narnia",
      codes: { iata: "12", agency_codes: ["A", " a "] }
    })
    expect(values.status).toBe(400)
    expect(values.body.error.details).toEqual({
      "email_domains[0]": ["is a free-mail domain: it names no company"],
      "email_domains[1]": ["must be a domain such as viajessol.es"],
      "desk_emails[0]": ["must be a usable email address"],
      phone: ["must be a valid phone number with its country code"],
      country: ["must be an ISO 3166-1 country code"],
      "codes.iata": ["must be an IATA number of 7 or 8 digits"],
      "codes.agency_codes[1]": ["is listed twice"]
    })
    const hotel = await api("POST", "/b2b/accounts", { name: "H", type: "corporate", codes: { rate_codes: [{ code: "R", hotel_id: "00000000-0000-4000-8000-000000000000" }] } })
    expect(hotel.status).toBe(422)
    expect(hotel.body.error).toMatchObject({ code: "HOTEL_NOT_FOUND", details: { "codes.rate_codes[0].hotel_id": [expect.any(String)] } })
    expect((await api("PATCH", "/b2b/accounts/00000000-0000-4000-8000-000000000000", { name: "x" })).status).toBe(404)
    expect((await api("PATCH", "/b2b/accounts/not-a-uuid", { name: "x" })).status).toBe(404)
    expect((await api("GET", "/b2b/accounts?limit=0")).status).toBe(400)
    expect((await api("GET", "/b2b/accounts?cursor=bogus")).status).toBe(400)
    expect(await accountRows(tenant.tenant_id)).toBe(before)
  })
})
