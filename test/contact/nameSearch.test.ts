import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { phone } from "../support/fixtures.ts"
import { createTenant, post, request, startPlatform, testSql, type RunningPlatform, type TestTenant } from "../support/platform.ts"

// GET /api/v1/contacts?name=: each word the start of a word of the first or last name, case and accents ignored.

let platform: RunningPlatform
let tenant: TestTenant
let other: TestTenant
const sql = testSql()
const ids: Record<string, string> = {}

const guest = async (t: TestTenant, key: string, first_name: string, last_name: string, extra: Record<string, unknown> = {}) => {
  const res = await post(platform.baseUrl, "/api/v1/guests", key, {
    phone: phone(Math.floor(Math.random() * 80_000_000)), first_name, last_name, hotel_code: t.hotel_code, ...extra
  })
  expect(res.status, JSON.stringify(res.body)).toBeLessThan(300)
  return res.body.data.contact_id as string
}

beforeAll(async () => {
  platform = await startPlatform("contacts_name")
  ;[tenant, other] = await Promise.all([createTenant("contacts-name"), createTenant("contacts-name-other")])
  // In order: the last written is the newest updated, first in every answer.
  ids.ana = await guest(tenant, tenant.live_key, "Ana", "García-López")
  ids.angel = await guest(tenant, tenant.live_key, "ÁNGEL", "Núñez", { tags: ["vip"] })
  ids.anabel = await guest(tenant, tenant.live_key, "anabel", "O'Brien")
  ids.juana = await guest(tenant, tenant.live_key, "Juana", "Garcia")
  await guest(tenant, tenant.test_key, "Ana", "García")
  await guest(other, other.live_key, "Ana", "García")
})
afterAll(async () => {
  await platform?.stop()
  await sql.end()
})

const found = async (query: string, key = tenant.live_key) => {
  const res = await request(platform.baseUrl, "GET", `/api/v1/contacts?${query}`, { key })
  expect(res.status, JSON.stringify(res.body)).toBe(200)
  return res.body.data
}
const names = async (name: string) => (await found(`name=${encodeURIComponent(name)}`)).contacts.map((c: any) => c.contact_id)

describe("GET /api/v1/contacts?name=", () => {
  it("matches the start of a first name, a last name or both, newest updated first", async () => {
    expect(await names("an")).toEqual([ids.anabel, ids.angel, ids.ana])
    expect(await names("ana")).toEqual([ids.anabel, ids.ana])
    expect(await names("ana gar")).toEqual([ids.ana])
    expect(await names("garcía ana")).toEqual([ids.ana])
    expect(await names("garc")).toEqual([ids.juana, ids.ana])
    expect(await names("lopez")).toEqual([ids.ana])
    expect(await names("garcia-lopez")).toEqual([ids.ana])
    expect(await names("brien")).toEqual([ids.anabel])
    // Inside a word is no match: "uana" is not the start of any word.
    expect(await names("uana")).toEqual([])
  })

  it("ignores case and accents on both sides", async () => {
    expect(await names("angel nunez")).toEqual([ids.angel])
    expect(await names("ÁNGEL NÚÑEZ")).toEqual([ids.angel])
    expect(await names("Nuñ")).toEqual([ids.angel])
    expect(await names("GARCIA")).toEqual([ids.juana, ids.ana])
    expect(await names("ANABEL")).toEqual([ids.anabel])
  })

  it("keeps to the caller's tenant and mode, and combines with the other filters", async () => {
    const sandbox = (await found("name=ana%20garcia", tenant.test_key)).contacts
    expect(sandbox).toHaveLength(1)
    expect(sandbox[0].contact_id).not.toBe(ids.ana)
    const theirs = (await found("name=ana%20garcia", other.live_key)).contacts
    expect(theirs).toHaveLength(1)
    expect(Object.values(ids)).not.toContain(theirs[0].contact_id)
    expect(await names("ana garcia")).toEqual([ids.ana])
    expect((await found("name=an&tag=vip")).contacts.map((c: any) => c.contact_id)).toEqual([ids.angel])
  })

  it("pages with the list's cursor", async () => {
    const first = await found("name=an&limit=2")
    expect(first.contacts.map((c: any) => c.contact_id)).toEqual([ids.anabel, ids.angel])
    expect(first.next_cursor).toEqual(expect.any(String))
    const second = await found(`name=an&limit=2&cursor=${encodeURIComponent(first.next_cursor)}`)
    expect(second.contacts.map((c: any) => c.contact_id)).toEqual([ids.ana])
    expect(second.next_cursor).toBeNull()
  })

  it("refuses a name too short, too long or with control characters: 400 naming name", async () => {
    for (const bad of ["a", " - ", "Á", "x".repeat(101), "ana\u0001", "ana\u200bgar", "ana\ngar"]) {
      const res = await request(platform.baseUrl, "GET", `/api/v1/contacts?name=${encodeURIComponent(bad)}`, { key: tenant.live_key })
      expect(res.status, `${JSON.stringify(bad)}: ${JSON.stringify(res.body)}`).toBe(400)
      expect(res.body).toMatchObject({ success: false, error: { code: "VALIDATION_ERROR", details: { name: expect.any(Array) } } })
    }
  })
})
