import { randomUUID } from "node:crypto"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import postgres from "postgres"
import { actAsTenant } from "../../../core/db/Database.ts"
import type { CustomFieldDef } from "../../../core/segment/catalog.ts"
import { loadContactState } from "../../../core/segment/contactState.ts"
import { segmentWhere } from "../../../core/segment/toSql.ts"
import { validateDefinition } from "../../../core/segment/validate.ts"
import type { SegmentDefinition, SegmentNode } from "../../../schemas/segment.ts"
import { ownDatabase } from "../../support/ownDatabase.ts"

// The compiled SQL's safety properties: what a definition holds only ever travels as parameters, pattern characters
// are plain text, and row-level security keeps a segment (and the loader) inside its tenant.

let database: Awaited<ReturnType<typeof ownDatabase>>
let sql: postgres.Sql
beforeAll(async () => {
  database = await ownDatabase("segment_sql")
  sql = postgres(database.url, { max: 2, onnotice: () => {} })
}, 60_000)
afterAll(async () => {
  await sql.end()
  await database.drop()
})

const customFields: ReadonlyArray<CustomFieldDef> = [{ field_key: "note", field_type: "text", options: null }]
const ctx = { now: new Date("2026-06-15T12:00:00Z"), customFields }
const def = (match: SegmentNode): SegmentDefinition => ({ version: 1, match })

const tenantWith = async (cities: ReadonlyArray<string>) => {
  const tenantId = randomUUID()
  await sql`INSERT INTO tenants (id, name) VALUES (${tenantId}, ${`segment sql ${tenantId}`})`
  const ids: Array<string> = []
  for (const city of cities) {
    const id = randomUUID()
    ids.push(id)
    await sql`INSERT INTO contacts (id, tenant_id, sandbox, email, address, custom_fields)
      VALUES (${id}, ${tenantId}, false, ${`${id}@example.test`}, ${sql.json({ city })}, ${sql.json({ note: city })})`
  }
  return { tenantId, ids }
}

/** The ids a definition selects as the tenant, with or without the caller's tenant condition. */
const select = (tenantId: string, d: SegmentDefinition, scoped = true) =>
  sql.begin(async (tx) => {
    await actAsTenant(tx, tenantId)
    const rows = await tx`SELECT c.id FROM contacts c
      WHERE ${scoped ? tx`c.tenant_id = ${tenantId} AND c.sandbox = false AND` : tx``} ${segmentWhere(tx, d, ctx)}`
    return rows.map((r) => r.id as string).sort()
  })

describe("segmentWhere", () => {
  const hostile = "x'); DELETE FROM contacts; --"
  const everyString: SegmentNode = {
    any: [
      { field: "contact.address.city", op: "eq", value: hostile },
      { field: "contact.address.city", op: "in", value: [hostile, "%"] },
      { field: "contact.address.city", op: "contains", value: hostile },
      { field: "custom.note", op: "starts_with", value: hostile },
      { field: "contact.tags", op: "contains_any", value: [hostile] },
      { performed: { event: hostile } },
      { has_stay: { where: { field: "stay.company", op: "neq", value: hostile } } }
    ]
  }

  it("sends every value as a parameter, never as SQL text", async () => {
    expect(validateDefinition(def(everyString), customFields)).toEqual([])
    const described = await sql`SELECT c.id FROM contacts c WHERE ${segmentWhere(sql, def(everyString), ctx)}`.describe()
    expect(described.string).not.toContain("DELETE")
    expect(described.string).not.toContain("%")
    expect(described.string).not.toContain("note")
    expect(described.types.length).toBeGreaterThanOrEqual(8)
  })

  it("reads LIKE's pattern characters as plain text, case aside", async () => {
    const { tenantId, ids } = await tenantWith(["100% Palma", "1000 Palma", "a_b", "axb", "Back\\slash"])
    const cities = (op: string, value: string) => select(tenantId, def({ field: "contact.address.city", op, value }))
    expect(await cities("contains", "0%")).toEqual([ids[0]!])
    expect(await cities("contains", "_")).toEqual([ids[2]!])
    expect(await cities("starts_with", "A_")).toEqual([ids[2]!])
    expect(await cities("contains", "\\S")).toEqual([ids[4]!])
    expect(await cities("contains", "palma")).toEqual([ids[0]!, ids[1]!].sort())
  })

  it("stays inside the tenant under row-level security, even when the caller forgets the tenant condition", async () => {
    const a = await tenantWith(["Palma"])
    const b = await tenantWith(["Palma"])
    const everyone = def({ all: [] })
    expect(await select(a.tenantId, everyone, false)).toEqual(a.ids)
    expect(await select(b.tenantId, def({ field: "contact.address.city", op: "eq", value: "Palma" }), false)).toEqual(b.ids)
    const seen = await sql.begin(async (tx) => {
      await actAsTenant(tx, a.tenantId)
      return [await loadContactState(tx, a.tenantId, false, a.ids[0]!), await loadContactState(tx, a.tenantId, false, b.ids[0]!),
        await loadContactState(tx, b.tenantId, false, b.ids[0]!), await loadContactState(tx, a.tenantId, true, a.ids[0]!)]
    })
    expect(seen.map((s) => s?.contact.id)).toEqual([a.ids[0], undefined, undefined, undefined])
  })
})
