import { describe, expect, it } from "@effect/vitest"
import { Schema } from "effect"
import fc from "fast-check"
import { validateDefinition } from "../../../core/segment/validate.ts"
import { type Leaf, SegmentDefinition, type SegmentNode } from "../../../schemas/segment.ts"
import { CUSTOM_FIELDS, definition as withPlaceholders, withIds } from "./definitions.ts"

const IDS = {
  "@hotel0": "3b2f6c1e-0000-4000-8000-000000000010", "@hotel1": "3b2f6c1e-0000-4000-8000-000000000011",
  "@hotel2": "3b2f6c1e-0000-4000-8000-000000000012", "@hotel3": "3b2f6c1e-0000-4000-8000-000000000013",
  "@journey0": "3b2f6c1e-0000-4000-8000-000000000020", "@journey1": "3b2f6c1e-0000-4000-8000-000000000021"
}
const definition = withPlaceholders.map((d) => withIds(d, IDS))
const validate = (match: unknown) => validateDefinition({ version: 1, match } as SegmentDefinition, CUSTOM_FIELDS)
const leaf = (field: string, op: string, value?: unknown) => (value === undefined ? { field, op } : { field, op, value })

/** The value at a path such as `match.all[2].has_stay.where.any[0].op`, or undefined when nothing is there. */
const at = (root: unknown, path: string): unknown =>
  path.split(/\.|(?=\[)/).reduce<unknown>((v, key) => {
    if (v === undefined || v === null || typeof v !== "object") return undefined
    const m = /^\[(\d+)\]$/.exec(key)
    return m !== null ? (v as Array<unknown>)[Number(m[1])] : (v as Record<string, unknown>)[key]
  }, root)

describe("validateDefinition", () => {
  it("accepts the design note's example", () => {
    expect(validate({
      all: [
        leaf("contact.language", "in", ["es", "pt"]),
        { any: [leaf("contact.nationality", "eq", "DE"), leaf("contact.address.country", "eq", "DE")] },
        { not: leaf("contact.tags", "contains_any", ["staff"]) },
        { has_stay: { where: { all: [
          leaf("stay.stage", "eq", "pre_stay"),
          leaf("stay.check_in", "within_next", { days: 14 }),
          leaf("stay.hotel_id", "in", ["3b2f6c1e-0000-4000-8000-000000000001"]),
          leaf("stay.status", "in", ["confirmed", "modified"])
        ] }, count: { op: "gte", value: 1 } } },
        leaf("custom.k_sel", "eq", "a"),
        { performed: { event: "cart.abandoned", within_last: { days: 7 }, count: { op: "gte", value: 1 } } },
        { received: { channel: "email", broadcast_id: "3b2f6c1e-0000-4000-8000-000000000002", negate: true } },
        { reachable: { channel: "whatsapp", category: "marketing" } }
      ]
    })).toEqual([])
  })

  it("names the path of each fault: field, operator, value, place", () => {
    expect(validate({ all: [leaf("contact.shoe_size", "eq", 42)] }))
      .toEqual([{ path: "match.all[0].field", message: "is not a segment field" }])
    expect(validate({ all: [leaf("contact.language", "gt", 3)] })[0]!.path).toBe("match.all[0].op")
    expect(validate({ any: [leaf("contact.language", "eq", 3)] })[0]!.path).toBe("match.any[0].value")
    expect(validate({ not: leaf("stay.check_in", "within_next", { days: 3 }) }))
      .toEqual([{ path: "match.not.field", message: "is a stay field: use it inside has_stay.where" }])
    expect(validate({ all: [{ has_stay: { where: { any: [leaf("stay.nights", "gt", 2), leaf("contact.language", "eq", "es")] } } }] }))
      .toEqual([{ path: "match.all[0].has_stay.where.any[1].field", message: "is a contact field: use it outside has_stay.where" }])
    expect(validate({ has_stay: { where: { reachable: { channel: "email", category: "utility" } } } })[0]!.path)
      .toBe("match.has_stay.where.reachable")
  })

  it("types values by field and operator, custom fields by their definition", () => {
    const faults = (l: object) => validate(l).map((i) => i.path)
    expect(faults(leaf("custom.nope", "eq", "x"))).toEqual(["match.field"])
    expect(faults(leaf("custom.k_sel", "eq", "z"))).toEqual(["match.value"])
    expect(faults(leaf("custom.k_multi", "contains_all", ["a", "z"]))).toEqual(["match.value"])
    expect(faults(leaf("custom.k_multi", "eq", "a"))).toEqual(["match.op"])
    expect(faults(leaf("custom.k_num", "between", [5, 1]))).toEqual(["match.value"])
    expect(faults(leaf("custom.k_num", "between", [1, 5]))).toEqual([])
    expect(faults(leaf("custom.k_date", "before", "2026-02-30"))).toEqual(["match.value"])
    expect(faults(leaf("custom.k_dt", "after", "2026-02-03T10:00:00+01:00"))).toEqual([])
    expect(faults(leaf("custom.k_dt", "after", "2026-02-03"))).toEqual([])
    expect(faults(leaf("contact.created_at", "within_last", 3))).toEqual(["match.value"])
    expect(faults(leaf("contact.has_email", "eq", "yes"))).toEqual(["match.value"])
    expect(faults(leaf("contact.email_consent", "exists", true))).toEqual(["match.value"])
    expect(faults(leaf("contact.language", "in", []))).toEqual(["match.value"])
    expect(faults(leaf("contact.language", "contains", ""))).toEqual(["match.value"])
    expect(faults({ received: { channel: "email", journey_id: "not-a-uuid" } })).toEqual(["match.received.journey_id"])
    expect(faults({ performed: { event: "x", count: { op: "about", value: 2 } } })).toEqual(["match.performed.count.op"])
  })

  it("limits depth to 5 and conditions to 50, naming the first node past the limit", () => {
    const deep = { not: { not: { not: { not: { not: leaf("contact.language", "eq", "es") } } } } }
    expect(validate(deep)).toEqual([{ path: "match.not.not.not.not.not", message: "is nested deeper than 5 levels" }])
    const many = { any: Array.from({ length: 51 }, () => leaf("contact.language", "eq", "es")) }
    expect(validate(many).map((i) => i.path)).toEqual(["match.any[50]"])
    expect(validate({ any: many.any.slice(0, 50) })).toEqual([])
  })

  it("every definition the generator makes is valid", () => {
    fc.assert(fc.property(definition, (def) => {
      expect(validateDefinition(def, CUSTOM_FIELDS)).toEqual([])
    }), { numRuns: 500 })
  })

  it("a broken leaf anywhere in a valid tree is reported at its path, and only there", () => {
    const breakages: ReadonlyArray<readonly [(l: Leaf) => Leaf, string]> = [
      [(l) => ({ ...l, field: "contact.nope" }), "field"],
      [(l) => ({ ...l, op: "matches_regex" }), "op"],
      [(l) => ({ ...l, op: "exists", value: "x" }), "value"]
    ]
    const leafPaths = (n: SegmentNode, path: string): Array<string> =>
      "all" in n ? n.all.flatMap((c, i) => leafPaths(c, `${path}.all[${i}]`))
        : "any" in n ? n.any.flatMap((c, i) => leafPaths(c, `${path}.any[${i}]`))
        : "not" in n ? leafPaths(n.not, `${path}.not`)
        : "has_stay" in n ? leafPaths(n.has_stay.where, `${path}.has_stay.where`)
        : "field" in n ? [path] : []
    const withLeaves = definition.filter((d) => leafPaths(d.match, "match").length > 0)
    fc.assert(fc.property(withLeaves, fc.nat(), fc.constantFrom(...breakages), (def, i, [breakLeaf, part]) => {
      const paths = leafPaths(def.match, "match")
      const target = paths[i % paths.length]!
      const copy = structuredClone(def) as { match: unknown }
      const parentPath = target === "match" ? "" : target.replace(/(\.[a-z_]+|\[\d+\])$/, "")
      const key = target.slice(parentPath.length).replace(/^\.|^\[|\]$/g, "")
      const holder = (parentPath === "" ? copy : at(copy, parentPath)) as Record<string, unknown>
      holder[key] = breakLeaf(at(copy, target) as Leaf)
      const issues = validateDefinition(copy as SegmentDefinition, CUSTOM_FIELDS)
      expect(issues).toHaveLength(1)
      expect(issues[0]!.path).toBe(`${target}.${part}`)
      expect(at(copy, issues[0]!.path)).toBeDefined()
    }), { numRuns: 500 })
  })
})

describe("SegmentDefinition schema", () => {
  const decode = Schema.decodeUnknownExit(SegmentDefinition)
  it("bounds strings, lists, the version and the tree's size", () => {
    const ok = (match: unknown) => decode({ version: 1, match })._tag === "Success"
    expect(ok(leaf("contact.language", "eq", "x".repeat(500)))).toBe(true)
    expect(ok(leaf("contact.language", "eq", "x".repeat(501)))).toBe(false)
    expect(ok(leaf("contact.language", "in", Array.from({ length: 1000 }, (_, i) => `${i}`)))).toBe(true)
    expect(ok(leaf("contact.language", "in", Array.from({ length: 1001 }, (_, i) => `${i}`)))).toBe(false)
    expect(ok({ not: { not: { not: { not: { not: leaf("a", "b") } } } } })).toBe(false)
    expect(ok({ any: Array.from({ length: 51 }, () => leaf("a", "b")) })).toBe(false)
    expect(decode({ version: 2, match: { all: [] } })._tag).toBe("Failure")
    expect(String(decode({ version: 1, match: { any: Array.from({ length: 51 }, () => leaf("a", "b")) } })))
      .toContain(`["match"]["any"][50]`)
  })
})
