import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { createTenant, post, request, startPlatform, type RunningPlatform, type TestTenant } from "../support/platform.ts"

let platform: RunningPlatform
let tenant: TestTenant
beforeAll(async () => {
  platform = await startPlatform("fields")
  tenant = await createTenant("fields")
})
afterAll(async () => {
  await platform?.stop()
})

const define = (body: unknown, key = tenant.live_key) => post(platform.baseUrl, "/api/v1/fields", key, body)

describe("custom field definitions", () => {
  it("upserts definitions by field_key and lists them in display order", async () => {
    const first = await define({ fields: [
      { field_key: "room_pref", field_label: "Room preference", field_type: "select", options: ["high", "low"], display_order: 2 },
      { field_key: "notes", field_label: "Notes", field_type: "text", display_order: 1, description: "free text" }
    ] })
    expect(first.status).toBe(200)
    expect(first.body.data.fields.map((f: { field_key: string }) => f.field_key).sort()).toEqual(["notes", "room_pref"])
    expect(first.body.data.fields[0]).toMatchObject({ created_at: expect.stringMatching(/Z$/), updated_at: expect.any(String), is_required: false, is_visible: true })
    await define({ fields: [{ field_key: "room_pref", field_label: "Floor", field_type: "select", options: ["high", "low", "any"], display_order: 0 }] })
    const list = await request(platform.baseUrl, "GET", "/api/v1/fields", { key: tenant.live_key })
    expect(list.body.data.fields.map((f: { field_key: string; field_label: string }) => [f.field_key, f.field_label])).toEqual([["room_pref", "Floor"], ["notes", "Notes"]])
    expect(list.body.data.fields[0].options).toEqual(["high", "low", "any"])
  })

  it("keeps sandbox definitions apart from live ones", async () => {
    await define({ fields: [{ field_key: "sandbox_only", field_label: "S", field_type: "boolean" }] }, tenant.test_key)
    const live = await request(platform.baseUrl, "GET", "/api/v1/fields", { key: tenant.live_key })
    expect(live.body.data.fields.map((f: { field_key: string }) => f.field_key)).not.toContain("sandbox_only")
  })

  it("refuses bad keys, types, missing options, duplicates and more than 50 definitions, naming the field", async () => {
    const cases: Array<[unknown, string]> = [
      [{ fields: [{ field_key: "9lives", field_label: "x", field_type: "string" }] }, "fields[0].field_key"],
      [{ fields: [{ field_key: "Upper", field_label: "x", field_type: "string" }] }, "fields[0].field_key"],
      [{ fields: [{ field_key: "k", field_label: "x", field_type: "color" }] }, "fields[0].field_type"],
      [{ fields: [{ field_key: "k", field_label: "x", field_type: "multiselect" }] }, "fields[0].options"],
      [{ fields: [{ field_key: "k", field_label: "", field_type: "string" }] }, "fields[0].field_label"],
      [{ fields: [{ field_key: "k", field_label: "a", field_type: "string" }, { field_key: "k", field_label: "b", field_type: "string" }] }, "fields"],
      [{ fields: Array.from({ length: 51 }, (_, i) => ({ field_key: `k${i}`, field_label: "x", field_type: "string" })) }, "fields"],
      [{ fields: [] }, "fields"]
    ]
    for (const [body, field] of cases) {
      const res = await define(body)
      expect(res.status).toBe(400)
      expect(Object.keys(res.body.error.details)).toContain(field)
    }
  })

  it("needs custom_fields:write to define and guests:read to list", async () => {
    const { createKey } = await import("../support/platform.ts")
    const reader = await createKey(tenant.tenant_id, ["guests:read"])
    expect((await define({ fields: [{ field_key: "x", field_label: "x", field_type: "string" }] }, reader.key)).status).toBe(403)
    expect((await request(platform.baseUrl, "GET", "/api/v1/fields", { key: reader.key })).status).toBe(200)
  })
})
