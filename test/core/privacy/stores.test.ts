import { afterAll, describe, expect, it } from "@effect/vitest"
import postgres from "postgres"
import { inject } from "vitest"
import { NoPersonalData, PrivacyStores, retentionTable } from "../../../core/privacy/stores/registry.ts"

// The registry against the migrated schema: every table is a store's or says why it holds no personal data, and the
// registry's order keeps every foreign key of a table whose rows an erasure deletes.

const sql = postgres(inject("databaseUrl"), { max: 1, onnotice: () => {} })
afterAll(() => sql.end())

const covered = new Map<string, Array<string>>()
for (const s of PrivacyStores) for (const t of s.tables) covered.set(t, [...(covered.get(t) ?? []), s.store])

describe("the privacy store registry", () => {
  it("covers every table of the schema, or names it in NoPersonalData with a reason", async () => {
    const tables = (await sql`SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE'`)
      .map((r) => r.table_name as string)
    const missing = tables.filter((t) => !covered.has(t) && !(t in NoPersonalData)).sort()
    expect(missing, `tables neither in a PrivacyStore's tables nor in NoPersonalData: ${missing.join(", ")}`).toEqual([])
    const both = tables.filter((t) => covered.has(t) && t in NoPersonalData)
    expect(both, "tables both covered by a store and declared without personal data").toEqual([])
    const unknown = [...covered.keys(), ...Object.keys(NoPersonalData)].filter((t) => !tables.includes(t))
    expect(unknown, "tables named by the registry that the schema does not have").toEqual([])
    for (const [table, reason] of Object.entries(NoPersonalData)) expect(reason.length, table).toBeGreaterThan(10)
  })

  it("holds each of those tables' personal-data columns: every table with a text, json, bytea or array column is listed", async () => {
    const withText = (await sql`
      SELECT DISTINCT c.table_name FROM information_schema.columns c
      JOIN information_schema.tables t ON t.table_schema = c.table_schema AND t.table_name = c.table_name
      WHERE c.table_schema = 'public' AND t.table_type = 'BASE TABLE'
        AND c.data_type IN ('text', 'character varying', 'character', 'json', 'jsonb', 'bytea', 'ARRAY')`).map((r) => r.table_name as string)
    expect(withText.filter((t) => !covered.has(t) && !(t in NoPersonalData))).toEqual([])
  })

  it("orders every foreign key: a row pointing at a table an erasure deletes goes first", async () => {
    const fks = await sql`
      SELECT conrelid::regclass::text AS child, confrelid::regclass::text AS parent FROM pg_constraint
      WHERE contype = 'f' AND connamespace = 'public'::regnamespace AND conrelid <> confrelid`
    const position = (table: string) => {
      const i = PrivacyStores.findIndex((s) => s.tables.includes(table))
      return i < 0 ? undefined : { store: i, table: PrivacyStores[i]!.tables.indexOf(table) }
    }
    const wrong: Array<string> = []
    for (const { child, parent } of fks) {
      const p = position(parent as string)
      if (p === undefined || PrivacyStores[p.store]!.action !== "deleted") continue
      // Every store that holds the child (a table may be anonymised by one store and deleted by another).
      for (const [i, s] of PrivacyStores.entries()) {
        const at = s.tables.indexOf(child as string)
        if (at < 0) continue
        if (i > p.store || (i === p.store && at > p.table)) wrong.push(`${child} (${s.store}) after ${parent} (${PrivacyStores[p.store]!.store})`)
      }
      if (!covered.has(child as string)) wrong.push(`${child} points at ${parent}, which an erasure deletes, and is in no store`)
    }
    expect(wrong).toEqual([])
  })

  it("names each store once, with what it holds, how it is erased and what bounds it (the README's retention table)", () => {
    const names = PrivacyStores.map((s) => s.store)
    expect(new Set(names).size).toBe(names.length)
    for (const row of retentionTable()) {
      expect(row.holds.length, row.store).toBeGreaterThan(10)
      expect(row.retention.length, row.store).toBeGreaterThan(3)
      expect(["deleted", "anonymised"]).toContain(row.erase)
      expect(row.tables.length, row.store).toBeGreaterThan(0)
    }
    expect(PrivacyStores.at(-1)!.store).toBe("contacts")
  })
})
