import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import fc from "fast-check"
import postgres from "postgres"
import { actAsTenant } from "../../../core/db/Database.ts"
import { gate } from "../../../core/message/gate.ts"
import { FIELDS } from "../../../core/segment/catalog.ts"
import { loadContactState } from "../../../core/segment/contactState.ts"
import { matches } from "../../../core/segment/evaluate.ts"
import { OPERATORS } from "../../../core/segment/leaf.ts"
import { reachableWhere, segmentWhere } from "../../../core/segment/toSql.ts"
import { validateDefinition } from "../../../core/segment/validate.ts"
import type { SegmentDefinition, SegmentNode } from "../../../schemas/segment.ts"
import { ownDatabase } from "../../support/ownDatabase.ts"
import { insertWorld, world } from "./data.ts"
import { CUSTOM_FIELDS, definition, NOW, withIds } from "./definitions.ts"

/**
 * The two evaluators of the segment language agree: for random data of a tenant and random definitions, the contacts
 * the compiled SQL selects (in a tenant transaction, row-level security on) are exactly those `matches` accepts over
 * `loadContactState`. A database of its own: the data is dated around a fixed `now`, and nothing else should meet it.
 */

let database: Awaited<ReturnType<typeof ownDatabase>>
let sql: postgres.Sql
beforeAll(async () => {
  database = await ownDatabase("segment")
  sql = postgres(database.url, { max: 2, onnotice: () => {} })
}, 60_000)
afterAll(async () => {
  await sql.end()
  await database.drop()
})

const WORLDS = 150
const DEFINITIONS_PER_WORLD = 25
const ctx = { now: NOW, customFields: CUSTOM_FIELDS }

/** What the runs reached: every node kind, field and operator must be among them. */
const seen = new Set<string>()
const note = (n: SegmentNode): void => {
  if ("all" in n) { seen.add("node:all"); n.all.forEach(note) }
  else if ("any" in n) { seen.add("node:any"); n.any.forEach(note) }
  else if ("not" in n) { seen.add("node:not"); note(n.not) }
  else if ("has_stay" in n) { seen.add("node:has_stay"); note(n.has_stay.where) }
  else if ("field" in n) { seen.add(`field:${n.field}`); seen.add(`op:${n.op}`) }
  else seen.add(`node:${Object.keys(n)[0]}`)
}

describe("segment evaluators", () => {
  it("SQL and TypeScript select the same contacts", async () => {
    const started = Date.now()
    let compared = 0
    let matched = 0
    await fc.assert(fc.asyncProperty(world, fc.array(definition, { minLength: DEFINITIONS_PER_WORLD, maxLength: DEFINITIONS_PER_WORLD }),
      async (w, generated) => {
        const { tenantId, contactIds, ids } = await insertWorld(sql, w)
        const defs: Array<SegmentDefinition> = generated.map((d) => withIds(d, ids))
        await sql.begin(async (tx) => {
          await actAsTenant(tx, tenantId)
          const states = await Promise.all(contactIds.map((id) => loadContactState(tx, tenantId, false, id)))
          // The preview's per-channel counts use reachableWhere directly: it must be the sender's gate too.
          for (const channel of ["email", "whatsapp"] as const) {
            for (const category of ["marketing", "utility"] as const) {
              const rows = await tx`SELECT c.id FROM contacts c
                WHERE c.tenant_id = ${tenantId} AND c.sandbox = false AND ${reachableWhere(tx, channel, category)}`
              const bySql = new Set(rows.map((r) => r.id as string))
              const byGate = new Set(contactIds.filter((_, i) =>
                gate(states[i]!.contact, channel, category, states[i]!.suppressed[channel]) === null))
              expect(bySql).toEqual(byGate)
            }
          }
          for (const def of defs) {
            expect(validateDefinition(def, CUSTOM_FIELDS)).toEqual([])
            note(def.match)
            const rows = await tx`SELECT c.id FROM contacts c
              WHERE c.tenant_id = ${tenantId} AND c.sandbox = false AND ${segmentWhere(tx, def, ctx)}`
            const bySql = new Set(rows.map((r) => r.id as string))
            // What the sender loads for one definition must decide as the whole state does.
            const narrowed = await Promise.all(contactIds.map((id) => loadContactState(tx, tenantId, false, id, def)))
            for (const [i, id] of contactIds.entries()) {
              const byTs = matches(def, states[i]!, ctx)
              expect(matches(def, narrowed[i]!, ctx)).toBe(byTs)
              compared++
              if (byTs) matched++
              if (byTs !== bySql.has(id)) {
                expect.fail(`contact ${i} (${id}): SQL ${bySql.has(id)}, TypeScript ${byTs}\n${JSON.stringify(def)}\n${JSON.stringify(states[i])}`)
              }
            }
          }
        })
      }), { numRuns: WORLDS })
    const expected = [
      ...["all", "any", "not", "has_stay", "performed", "received", "reachable"].map((k) => `node:${k}`),
      ...Object.keys(FIELDS).map((f) => `field:${f}`),
      ...CUSTOM_FIELDS.map((d) => `field:custom.${d.field_key}`),
      ...[...new Set(Object.values(OPERATORS).flat())].map((o) => `op:${o}`)
    ]
    expect(expected.filter((e) => !seen.has(e))).toEqual([])
    // Neither side is trivially constant.
    expect(matched).toBeGreaterThan(compared / 20)
    expect(matched).toBeLessThan(compared * 0.95)
    console.info(`segment differential: ${WORLDS} worlds × ${DEFINITIONS_PER_WORLD} definitions, ${compared} contact checks, ${matched} matches, ${Date.now() - started} ms`)
  }, 120_000)
})
