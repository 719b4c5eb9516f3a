import { describe, expect, it } from "@effect/vitest"
import { Schema } from "effect"
import fc from "fast-check"
import { type AccountFacts, checkAccount, checkDefinition, validateDefinition } from "../../../core/journey/validate.ts"
import { JourneyDefinition, type JourneyStep } from "../../../schemas/journey.ts"

const def = (steps: ReadonlyArray<unknown>, extra: Record<string, unknown> = {}): JourneyDefinition =>
  Schema.decodeUnknownSync(JourneyDefinition)({ name: "J", trigger: { type: "event", event: "booking.created" }, steps, ...extra })

const paths = (issues: ReadonlyArray<{ path: string }>) => issues.map((i) => i.path)

const HOTEL = "11111111-1111-4111-8111-111111111111"
const facts = (overrides: Partial<AccountFacts> = {}): AccountFacts => ({
  hotelIds: new Set([HOTEL]),
  emailConfigured: true,
  whatsAppTemplates: [{ name: "cart_reminder", language: "es", category: "marketing", body_parameters: 2 }],
  mode: "live",
  ...overrides
})

const wait = (id: string) => ({ id, type: "wait", duration: "PT1H" })
const email = (id: string, fields: Record<string, unknown> = {}) => ({ id, type: "email", category: "utility", subject: "Hi {{contact_first_name}}", text: "x", ...fields })
const branch = (id: string, then: string, otherwise: string) => ({ id, type: "branch", if: { has: "email" }, then, else: otherwise })

describe("the definition check", () => {
  it("accepts a well-formed journey with a forward branch and known tags", () => {
    const d = def([wait("w1"), email("e1", { html: "<a href='{{event_resume_url}}'>{{ event_prop_room }}</a>" }), branch("b1", "w2", "end"), wait("w2"), { id: "done", type: "end" }])
    expect(validateDefinition(d, facts())).toEqual({ errors: [], warnings: [] })
  })

  it("names duplicate ids, missing targets and unknown tags by field, with the step and the tag", () => {
    const d = def([email("e1"), email("e2", { subject: "Back? {{event_resum_url}}", html: "{{contact_first_name}} {{nope}}" }), email("e1"), branch("b1", "missing", "end")])
    const { errors } = checkDefinition(d)
    expect(errors).toContainEqual({ path: "steps[1].subject", message: "unknown merge tag {{event_resum_url}} in step \"e2\"" })
    expect(errors).toContainEqual({ path: "steps[1].html", message: "unknown merge tag {{nope}} in step \"e2\"" })
    expect(paths(errors)).toEqual(expect.arrayContaining(["steps[2].id", "steps[3].then"]))
    expect(paths(errors)).not.toContain("steps[3].else")
  })

  it("refuses a cycle, naming the branch that jumps back", () => {
    const d = def([wait("w1"), email("e1"), branch("b1", "w1", "end")])
    const { errors } = checkDefinition(d)
    expect(errors).toEqual([{ path: "steps[2].then", message: expect.stringContaining("makes a cycle: w1 → e1 → b1 → w1") }])
    expect(paths(checkDefinition(def([branch("b", "end", "b")])).errors)).toEqual(["steps[0].else"])
  })

  it("warns about steps no run reaches, and refuses an email without a body", () => {
    const { text: _text, ...noBody } = email("e1")
    const d = def([{ id: "x", type: "end" }, noBody])
    const { errors, warnings } = checkDefinition(d)
    expect(paths(warnings)).toEqual(["steps[1]"])
    expect(paths(errors)).toEqual(["steps[1].text"])
  })

  it("refuses unknown WhatsApp param paths and branch properties", () => {
    const d = def([
      { id: "wa", type: "whatsapp", category: "marketing", template: "cart_reminder", language: "es", params: ["contact.first_name", "contact.password"] },
      { id: "b", type: "branch", if: { property: "guest.secret" }, then: "end", else: "end" }
    ])
    expect(paths(checkDefinition(d).errors)).toEqual(["steps[0].params[1]", "steps[1].if.property"])
  })

  it("checks WhatsApp templates, categories and parameter counts against the channel; unknown hotels; email unconfigured warns", () => {
    const wa = (fields: Record<string, unknown>) => ({ id: "wa", type: "whatsapp", category: "marketing", template: "cart_reminder", language: "es", params: ["contact.first_name", "event.name"], ...fields })
    expect(checkAccount(def([wa({})]), facts()).errors).toEqual([])
    expect(paths(checkAccount(def([wa({ language: "en" })]), facts()).errors)).toEqual(["steps[0].template"])
    expect(paths(checkAccount(def([wa({ params: ["event.name"] })]), facts()).errors)).toEqual(["steps[0].params"])
    expect(paths(checkAccount(def([wa({ category: "utility" })]), facts()).errors)).toEqual(["steps[0].category"])
    expect(checkAccount(def([wa({})]), facts({ whatsAppTemplates: null })).errors[0]!.message).toContain("not configured")
    const other = "22222222-2222-4222-8222-222222222222"
    expect(paths(checkAccount(def([email("e")], { hotel_ids: [HOTEL, other] }), facts()).errors)).toEqual(["hotel_ids[1]"])
    const unconfigured = checkAccount(def([email("e1"), email("e2")]), facts({ emailConfigured: false }))
    expect(unconfigured.errors).toEqual([])
    expect(paths(unconfigured.warnings)).toEqual(["steps[0]"])
  })
})

// Random step graphs: ids s0..sN-1, branches to any id, `end`, or an id that does not exist.
const graph = fc.integer({ min: 1, max: 12 }).chain((n) => {
  const target = fc.oneof(fc.integer({ min: 0, max: n - 1 }).map((k) => `s${k}`), fc.constant("end"), fc.constant("missing"))
  return fc.array(fc.oneof(
    fc.constant<"wait" | "end">("wait"),
    fc.constant<"wait" | "end">("end"),
    fc.tuple(target, target)
  ), { minLength: n, maxLength: n })
}).map((kinds): Array<JourneyStep> => kinds.map((k, i) =>
  k === "wait" ? { id: `s${i}`, type: "wait", duration: "PT1H" }
  : k === "end" ? { id: `s${i}`, type: "end" }
  : { id: `s${i}`, type: "branch", if: { has: "phone" }, then: k[0], else: k[1] }))

/** The oracle: Kahn's algorithm over the edges, written apart from the check's depth-first search. */
const acyclic = (steps: ReadonlyArray<JourneyStep>): boolean => {
  const index = new Map(steps.map((s, i) => [s.id, i]))
  const edges = steps.map((s, i) =>
    s.type === "end" ? []
    : s.type === "branch" ? [s.then, s.else].filter((t) => t !== "end").map((t) => index.get(t)).filter((t) => t !== undefined)
    : i + 1 < steps.length ? [i + 1] : [])
  const indegree = steps.map(() => 0)
  edges.flat().forEach((t) => indegree[t]!++)
  const ready = indegree.flatMap((d, i) => (d === 0 ? [i] : []))
  let removed = 0
  while (ready.length > 0) {
    const i = ready.pop()!
    removed++
    for (const t of edges[i]!) if (--indegree[t]! === 0) ready.push(t)
  }
  return removed === steps.length
}

describe("the definition check on random step graphs", () => {
  it("accepts a graph iff it is acyclic and every branch target exists", () => {
    fc.assert(fc.property(graph, (steps) => {
      const d: JourneyDefinition = { name: "G", trigger: { type: "event", event: "booking.created" }, steps }
      const targetsExist = steps.every((s) => s.type !== "branch" || (s.then !== "missing" && s.else !== "missing"))
      expect(checkDefinition(d).errors.length === 0).toBe(targetsExist && acyclic(steps))
    }), { numRuns: 2_000 })
  })

  it("names every refusal at a field of a step, and a cycle at a branch that jumps back", () => {
    fc.assert(fc.property(graph, (steps) => {
      const d: JourneyDefinition = { name: "G", trigger: { type: "event", event: "booking.created" }, steps }
      for (const e of checkDefinition(d).errors) {
        const m = /^steps\[(\d+)\]\.(then|else)$/.exec(e.path)
        expect(m, e.path).not.toBeNull()
        const step = steps[Number(m![1])]!
        expect(step.type).toBe("branch")
        if (e.message.startsWith("makes a cycle")) {
          const target = step.type === "branch" ? step[m![2] as "then" | "else"] : ""
          expect(Number(target.slice(1))).toBeLessThanOrEqual(Number(m![1]))
        }
      }
    }), { numRuns: 1_000 })
  })
})
